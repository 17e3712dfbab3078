// `notifyWhen`: rules that must become true for a detected change to be notified ("tell me when the
// price drops below 20"). A rule reads one element, chosen by `selector`, or the capture's price and
// stock, and tests one thing; rules can be grouped with {all: [...]} and {any: [...]}.
//
// An entry is one object schema holding the fields of a rule and of a group, checked by a refinement,
// rather than a union: a union's error names only the entry, this names the field. The nesting is
// spelled out level by level (not recursive), so the request's JSON Schema needs no $ref.
import { z } from 'zod';
import { ignoreTextProblem } from '../../diff/text/ignore-text.js';
import { MAX_GROUP_DEPTH, MAX_RULES, RULE_TESTS, isPriceTest, leafRules } from '../../domain/notify-rules.js';
import { MAX_PATTERN_CHARS, MAX_SEARCH_TEXT_CHARS, MAX_SELECTOR_CHARS } from './string-caps.js';

export { MAX_RULES } from '../../domain/notify-rules.js';

/** Text is compared ignoring case and with runs of whitespace as one space, so blank text would match anything. */
const searchText = z
  .string()
  .max(MAX_SEARCH_TEXT_CHARS)
  .refine((s) => s.trim().length > 0, 'must contain something other than spaces');

/** A user's regular expression: it must compile on RE2 (linear time), as diff.ignoreText's do. */
const pattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_CHARS)
  .superRefine((value, ctx) => {
    const problem = ignoreTextProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const price = z.number().finite();

/** {percent: n} or {amount: n}, n > 0. */
const priceMove = z
  .object({
    percent: z.number().positive().max(1000).optional().describe('By at least this percentage of the previous price'),
    amount: price.positive().optional().describe('By at least this amount, in the price’s currency'),
  })
  .strict()
  .superRefine((move, ctx) => {
    if ((move.percent === undefined) === (move.amount === undefined))
      ctx.addIssue({ code: 'custom', message: 'give either percent or amount (one of them)' });
  });

const ruleFields = {
  selector: z
    .string()
    .min(1)
    .max(MAX_SELECTOR_CHARS)
    .optional()
    .describe(
      'The element the rule reads (its first match); required by the text, number and appear tests, refused by the price tests',
    ),
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
  numberChanged: z.literal(true).optional().describe("True when the first number differs from the previous capture's"),
  appears: z.literal(true).optional().describe('True when something matches the selector'),
  disappears: z.literal(true).optional().describe('True when nothing matches the selector'),
  textMatches: pattern
    .optional()
    .describe("True when this RE2 pattern matches the element's text (case-insensitive unless flags say)"),
  textNotMatches: pattern
    .optional()
    .describe('True when the element exists and this RE2 pattern does not match its text'),
  flags: z
    .string()
    .max(3)
    .regex(/^(?!.*(.).*\1)[ims]*$/, 'flags are any of "i", "m" and "s", each at most once')
    .optional()
    .describe(
      'textMatches / textNotMatches only: "i" ignore case, "m" ^ and $ at line ends, "s" . matches a line ' +
        'break; default "i" ("" is case-sensitive)',
    ),
  priceBelow: price.optional().describe("True when the capture's price is below this (again at each further drop)"),
  priceAbove: price.optional().describe("True when the capture's price is above this (again at each further rise)"),
  priceOutside: z
    .tuple([price, price])
    .optional()
    .describe("[min, max], min < max: true when the capture's price is below min or above max"),
  priceDropsBy: priceMove.optional().describe('True when the price fell by this much since the previous capture'),
  priceRisesBy: priceMove.optional().describe('True when the price rose by this much since the previous capture'),
  backInStock: z.literal(true).optional().describe('True when the previous capture was not in stock and this one is'),
  outOfStock: z.literal(true).optional().describe('True when the previous capture was in stock and this one is not'),
  while: z.literal(true).optional().describe('The rule only has to hold: its becoming true is not news by itself'),
};
type RuleFields = { [K in keyof typeof ruleFields]?: unknown };

/** An entry whose groups may still hold entries `depth` levels deep (0: no group allowed). */
function entrySchema<G extends z.ZodType>(groupEntries: G, depth: number) {
  const group = z.array(groupEntries).min(1).max(MAX_RULES).optional();
  return z
    .object({
      ...ruleFields,
      all: group.describe('A group: true when every entry in it is true'),
      any: group.describe('A group: true when at least one entry in it is true'),
    })
    .strict()
    .superRefine((entry, ctx) => {
      if (entry.all !== undefined || entry.any !== undefined) checkGroup(entry, depth, ctx);
      else checkRule(entry, ctx);
    });
}

function checkGroup(entry: RuleFields & { all?: unknown; any?: unknown }, depth: number, ctx: z.RefinementCtx): void {
  const kind = entry.all !== undefined ? 'all' : 'any';
  if (depth === 0) {
    ctx.addIssue({
      code: 'custom',
      path: [kind],
      message: `groups nest at most ${MAX_GROUP_DEPTH} deep: put these rules in the group around it`,
    });
    return;
  }
  if (entry.all !== undefined && entry.any !== undefined)
    ctx.addIssue({ code: 'custom', path: ['any'], message: 'a group is either all or any: put one inside the other' });
  for (const field of Object.keys(ruleFields) as (keyof RuleFields)[]) {
    if (entry[field] !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `a group takes only ${kind}: put ${field} in a rule inside it`,
      });
  }
}

function checkRule(rule: RuleFields, ctx: z.RefinementCtx): void {
  const tests = RULE_TESTS.filter((t) => rule[t] !== undefined);
  if (tests.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `a rule needs one test: ${RULE_TESTS.join(', ')} (or the entry is a group: all, any)`,
    });
    return;
  }
  // Each test past the first is named, so the error points at the field to remove.
  for (const extra of tests.slice(1)) {
    ctx.addIssue({
      code: 'custom',
      path: [extra],
      message: `a rule takes exactly one test; this one already has ${tests[0]}`,
    });
  }
  const test = tests[0]!;
  if (isPriceTest(test) && rule.selector !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['selector'],
      message: `${test} reads the capture's price and stock, not an element: remove the selector`,
    });
  if (!isPriceTest(test) && rule.selector === undefined)
    ctx.addIssue({ code: 'custom', path: ['selector'], message: `${test} reads an element: give its selector` });
  if (rule.flags !== undefined && test !== 'textMatches' && test !== 'textNotMatches')
    ctx.addIssue({
      code: 'custom',
      path: ['flags'],
      message: 'flags go with textMatches or textNotMatches only: remove them',
    });
  const outside = rule.priceOutside as [number, number] | undefined;
  if (outside && outside[0] >= outside[1])
    ctx.addIssue({
      code: 'custom',
      path: ['priceOutside'],
      message: `priceOutside is [min, max] with min below max; ${outside[0]} is not below ${outside[1]}`,
    });
}

// Level by level: the innermost entries (three groups deep) can no longer be groups.
const innermost = entrySchema(z.unknown(), 0);
const thirdLevel = entrySchema(innermost, 1);
const secondLevel = entrySchema(thirdLevel, 2);
/** One entry of notifyWhen: a rule, or a group of entries nested at most MAX_GROUP_DEPTH deep. */
export const ruleSchema = entrySchema(secondLevel, MAX_GROUP_DEPTH);

export const notifyWhenSchema = z
  .array(ruleSchema)
  .max(MAX_RULES)
  .superRefine((entries, ctx) => {
    const count = leafRules(entries).length;
    if (count > MAX_RULES)
      ctx.addIssue({
        code: 'custom',
        message: `notifyWhen can hold at most ${MAX_RULES} rules in all, counting those inside groups (it has ${count}): remove some.`,
      });
  })
  .default([])
  .describe(
    'Rules (and {all} / {any} groups of rules) that must all be true, and at least one newly so, for a ' +
      'change to be notified; empty: every change is. At most 20 rules in all, groups at most 3 deep',
  );
