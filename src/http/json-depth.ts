// How deeply a JSON text nests, measured on the text without recursion, so that a hostile body
// (100,000 `[`) costs one linear scan instead of overflowing the stack of whatever walks the parsed
// value later (a JSON Merge Patch, a schema).

/** The deepest JSON nesting any endpoint accepts: far beyond any real request, far below any stack limit. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `text` opens more than `limit` objects/arrays inside one another. Brackets inside
 * strings do not count. Stops at the first level over the limit.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped, whatever it is
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      // { [
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      // } ]
      depth--;
    }
  }
  return false;
}
