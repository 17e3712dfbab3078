// How deeply a JSON text nests, measured on the text without recursion, so that a hostile body
// (100,000 `[`) costs one linear scan instead of overflowing the stack of whatever walks the parsed
// value later (a JSON Merge Patch, a schema). The scan itself is src/content/json-nesting.ts, which
// monitors use on the JSON they fetch.

/** The deepest JSON nesting any endpoint accepts: far beyond any real request, far below any stack limit. */
export const MAX_JSON_DEPTH = 64;

export { nestsDeeperThan } from '../content/json-nesting.js';
