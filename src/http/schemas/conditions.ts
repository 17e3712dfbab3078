// `notifyWhen`: rules that must become true for a detected change to be notified ("tell me when the
// price drops below 20"). Each rule reads one element, chosen by `selector`, and tests one thing.
import { z } from 'zod';

export const MAX_RULES = 20;
export const RULE_TESTS = ['textContains', 'textNotContains', 'numberBelow', 'numberAbove', 'numberChanged', 'appears', 'disappears'] as const;
export type RuleTest = (typeof RULE_TESTS)[number];

export const ruleSchema = z.object({
  selector: z.string().min(1).max(1000).describe('The element the rule reads (its first match)'),
  textContains: z.string().min(1).max(1000).optional().describe('True when the element\'s text contains this (case-insensitive)'),
  textNotContains: z.string().min(1).max(1000).optional().describe('True when the element exists and its text does not contain this'),
  numberBelow: z.number().finite().optional().describe('True when the first number in the element\'s text is below this'),
  numberAbove: z.number().finite().optional().describe('True when the first number in the element\'s text is above this'),
  numberChanged: z.literal(true).optional().describe('True when the first number differs from the previous capture\'s'),
  appears: z.literal(true).optional().describe('True when the element is on the page'),
  disappears: z.literal(true).optional().describe('True when nothing matches the selector'),
}).strict().superRefine((rule, ctx) => {
  const tests = RULE_TESTS.filter((t) => rule[t] !== undefined);
  if (tests.length !== 1) {
    ctx.addIssue({ code: 'custom', message: `a rule takes exactly one test of ${RULE_TESTS.join(', ')}${tests.length ? ` (it has ${tests.join(', ')})` : ''}` });
  }
});

export const notifyWhenSchema = z.array(ruleSchema).max(MAX_RULES).default([])
  .describe('Rules that must all be true, and at least one newly so, for a change to be notified; empty: every change is');

export type Rule = z.infer<typeof ruleSchema>;
