// diff.filters: an ordered list of filters, each an object with exactly one kind (src/domain/filters.ts).
// Expressions are checked here so a broken one is a 400 naming the filter, not a failed capture later.
import { z } from 'zod';
import { MAX_FILTERS, type Filter } from '../../domain/filters.js';
import { ignoreTextProblem } from '../../diff/text/ignore-text.js';
import { jsonPathProblem, xpathProblem } from '../../filters/expression-check.js';
import { MAX_PATH_EXPRESSION_CHARS, MAX_PATTERN_CHARS, MAX_SELECTOR_CHARS } from './string-caps.js';

const selector = z.string().min(1).max(MAX_SELECTOR_CHARS);
const expression = z.string().min(1).max(MAX_PATH_EXPRESSION_CHARS);
/** An expression checked by `problem` (null: usable): a 400 at diff.filters.N.<kind> otherwise. */
const checked = (problem: (value: string) => string | null) =>
  expression.superRefine((value, ctx) => {
    const found = problem(value);
    if (found) ctx.addIssue({ code: 'custom', message: found });
  });

const pattern = z.string().min(1).max(MAX_PATTERN_CHARS);

export const filterSchema = z.union([
  z.object({ css: selector.describe('Keep the text of every element this CSS selector matches') }).strict(),
  z
    .object({
      xpath: checked(xpathProblem).describe(
        'Keep the text of every node this XPath 1.0 expression selects (a text or attribute node: its element)',
      ),
    })
    .strict(),
  z
    .object({
      jsonPath: checked(jsonPathProblem).describe(
        'JSON content: keep the values this JSONPath selects; filter expressions such as ?(@.price < 10) ' +
          'run on a safe evaluator (no JavaScript)',
      ),
    })
    .strict(),
  z.object({ remove: selector.describe('Leave out every element this CSS selector matches') }).strict(),
  z
    .object({
      extract: pattern.describe(
        'Keep only the matches of this regular expression (RE2; case-sensitive unless flags has "i"), each ' +
          'a block of its own; with capture groups, the groups joined by a space',
      ),
      flags: z
        .string()
        .max(3)
        .regex(/^(?!.*(.).*\1)[ims]*$/, 'flags are any of "i", "m" and "s", each at most once')
        .optional()
        .describe('"i": ignore case, "m": ^ and $ match at line ends, "s": . matches a line break'),
    })
    .strict()
    .superRefine((value, ctx) => {
      const problem = ignoreTextProblem(value.extract, value.flags ?? '');
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['extract'] });
    }),
  z.object({ unique: z.literal(true).describe('Keep each line once') }).strict(),
  z.object({ sort: z.literal(true).describe('Sort the lines') }).strict(),
  z.object({ dropBlank: z.literal(true).describe('Leave out empty lines') }).strict(),
  z.object({ ignoreCase: z.literal(true).describe('Compare ignoring case (the text is lower-cased)') }).strict(),
  z
    .object({ ignoreWhitespace: z.literal(true).describe('Compare ignoring whitespace (every space is left out)') })
    .strict(),
]);

export const filtersSchema = z
  .array(filterSchema)
  .max(MAX_FILTERS)
  .default([])
  .describe('What part of the page (or PDF, JSON, text) is compared, in order; see "Filters" in the monitors docs');

/** The schema's output is the domain's Filter. */
export type FiltersProduce = z.output<typeof filterSchema> extends Filter ? true : never;
