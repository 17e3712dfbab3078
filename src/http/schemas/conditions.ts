// `notifyWhen`: rules that must become true for a detected change to be notified ("tell me when the
// price drops below 20"). Each rule reads one element, chosen by `selector`, and tests one thing.
import { z } from 'zod';
import { RULE_TESTS } from '../../domain/notify-rules.js';
import { MAX_SEARCH_TEXT_CHARS, MAX_SELECTOR_CHARS } from './string-caps.js';

export const MAX_RULES = 20;

/** Text is compared ignoring case and with runs of whitespace as one space, so blank text would match anything. */
const searchText = z
  .string()
  .max(MAX_SEARCH_TEXT_CHARS)
  .refine((s) => s.trim().length > 0, 'must contain something other than spaces');

export const ruleSchema = z
  .object({
    selector: z.string().min(1).max(MAX_SELECTOR_CHARS).describe('The element the rule reads (its first match)'),
    textContains: searchText.optional().describe("True when the element's text contains this (case-insensitive)"),
    textNotContains: searchText.optional().describe('True when the element exists and its text does not contain this'),
    numberBelow: z
      .number()
      .finite()
      .optional()
      .describe("True when the first number in the element's text is below this"),
    numberAbove: z
      .number()
      .finite()
      .optional()
      .describe("True when the first number in the element's text is above this"),
    numberChanged: z
      .literal(true)
      .optional()
      .describe("True when the first number differs from the previous capture's"),
    appears: z.literal(true).optional().describe('True when something matches the selector'),
    disappears: z.literal(true).optional().describe('True when nothing matches the selector'),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const tests = RULE_TESTS.filter((t) => rule[t] !== undefined);
    if (tests.length === 0) {
      ctx.addIssue({ code: 'custom', message: `a rule needs one test: ${RULE_TESTS.join(', ')}` });
    }
    // Each test past the first is named, so the error points at the field to remove.
    for (const extra of tests.slice(1)) {
      ctx.addIssue({
        code: 'custom',
        path: [extra],
        message: `a rule takes exactly one test; this one already has ${tests[0]}`,
      });
    }
  });

export const notifyWhenSchema = z
  .array(ruleSchema)
  .max(MAX_RULES)
  .default([])
  .describe(
    'Rules that must all be true, and at least one newly so, for a change to be notified; empty: every change is',
  );
