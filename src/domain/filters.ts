// diff.filters: what part of what a monitor reads is compared, as an ordered list. Each filter has
// exactly one key (the HTTP schema, src/http/schemas/filters.ts, makes sure). Selecting filters (css,
// xpath, jsonPath, extract) that match nothing make the capture a `filter_missing` result, not a change.

export type Filter =
  /** Keep the text of every element matching this CSS selector (several css/xpath filters: any of them). */
  | { css: string }
  /** Keep the text of every node matching this XPath 1.0 expression. */
  | { xpath: string }
  /** JSON content: keep the values this JSONPath selects. */
  | { jsonPath: string }
  /** Leave out every element matching this CSS selector, and what is inside it. */
  | { remove: string }
  /** Keep only the matches of this regular expression (RE2), one line each; `flags`: any of "i", "m", "s". */
  | { extract: string; flags?: string }
  /** Keep each line once (the first time it appears). */
  | { unique: true }
  /** Sort the lines (by code point, after the earlier filters). */
  | { sort: true }
  /** Leave out empty lines. */
  | { dropBlank: true }
  /** Compare ignoring case. */
  | { ignoreCase: true }
  /** Compare ignoring whitespace (runs of it and at the ends of lines). */
  | { ignoreWhitespace: true };

export const MAX_FILTERS = 20;
