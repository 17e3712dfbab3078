// How deeply a JSON text nests, measured without recursion, so that hostile content (100,000 `[`)
// costs one linear scan instead of overflowing the stack of what walks the parsed value: fetched JSON
// (read-text.ts) and request bodies (src/http/json-depth.ts).

/** True when `text` opens more than `limit` objects/arrays inside one another (brackets in strings do not count). */
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
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
