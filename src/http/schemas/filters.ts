// diff.filters: an ordered list of filters, each an object with exactly one kind (src/domain/filters.ts).
// Expressions are checked here so a broken one is a 400 naming the filter, not a failed capture later.
import { z } from 'zod';
import { MAX_FILTERS, type Filter } from '../../domain/filters.js';
import { ignoreTextProblem } from '../../diff/text/ignore-text.js';
import { MAX_PATH_EXPRESSION_CHARS, MAX_PATTERN_CHARS, MAX_SELECTOR_CHARS } from './string-caps.js';

const selector = z.string().min(1).max(MAX_SELECTOR_CHARS);
const expression = z.string().min(1).max(MAX_PATH_EXPRESSION_CHARS);

const pattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_CHARS)
  .superRefine((value, ctx) => {
    const problem = ignoreTextProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const filterSchema = z.union([
  z.object({ css: selector.describe('Keep the text of every element this CSS selector matches') }).strict(),
  z.object({ xpath: expression.describe('Keep the text of every node this XPath 1.0 expression selects') }).strict(),
  z.object({ jsonPath: expression.describe('JSON content: keep the values this JSONPath selects') }).strict(),
  z.object({ remove: selector.describe('Leave out every element this CSS selector matches') }).strict(),
  z
    .object({
      extract: pattern.describe('Keep only the matches of this regular expression (RE2), one line each'),
      flags: z
        .string()
        .max(3)
        .regex(/^(?!.*(.).*\1)[ims]*$/, 'flags are any of "i", "m" and "s", each at most once')
        .optional()
        .describe('"i": ignore case, "m": ^ and $ match at line ends, "s": . matches a line break'),
    })
    .strict(),
  z.object({ unique: z.literal(true).describe('Keep each line once') }).strict(),
  z.object({ sort: z.literal(true).describe('Sort the lines') }).strict(),
  z.object({ dropBlank: z.literal(true).describe('Leave out empty lines') }).strict(),
  z.object({ ignoreCase: z.literal(true).describe('Compare ignoring case') }).strict(),
  z.object({ ignoreWhitespace: z.literal(true).describe('Compare ignoring whitespace') }).strict(),
]);

export const filtersSchema = z
  .array(filterSchema)
  .max(MAX_FILTERS)
  .default([])
  .describe('What part of the page (or PDF, JSON, text) is compared, in order; see "Filters" in the monitors docs');

/** The schema's output is the domain's Filter. */
export type FiltersProduce = z.output<typeof filterSchema> extends Filter ? true : never;
