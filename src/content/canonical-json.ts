// JSON in its canonical form, one line per value, each line with the JSON path of what it holds: keys
// sorted by code point, numbers as ECMAScript's Number#toString writes them (1.0, 1 and 1e0 are the
// same number and print "1"; integers beyond 2^53 lose precision as JSON.parse reads them), two spaces
// of indentation. Two documents that differ only in key order or number spelling print the same lines,
// so reordering keys is no change. Pure and synchronous: it runs in the content thread (thread.ts).

/** One line of the pretty print. */
export interface JsonLine {
  /** Where the value of the line is, e.g. `$.items[0].price` (see jsonPath). */
  path: string;
  /** The line as printed, indentation and trailing comma included (for the picture). */
  printed: string;
  /** What is compared: the line without its indentation and trailing comma (appending an item adds a
   * comma to the line before it, which is no change of that line's value). */
  text: string;
}

/** Compares by Unicode code point (JavaScript's default sort compares UTF-16 code units). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++; // a surrogate pair: both strings hold the same one
  }
  return a.length - b.length;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A member's path: `.name` for identifier-like names, else `['name']` with ' and \ escaped. */
export function memberPath(parent: string, key: string): string {
  return IDENTIFIER.test(key) ? `${parent}.${key}` : `${parent}['${key.replace(/[\\']/g, (c) => `\\${c}`)}']`;
}

/**
 * The canonical lines of `value` (a parsed JSON value, nesting already bounded by the caller), at most
 * `maxLines` of them; `total` counts them all.
 */
export function canonicalLines(value: unknown, maxLines: number): { lines: JsonLine[]; total: number } {
  const lines: JsonLine[] = [];
  let total = 0;
  const push = (path: string, indent: string, body: string, comma: boolean) => {
    total++;
    if (lines.length < maxLines) lines.push({ path, printed: `${indent}${body}${comma ? ',' : ''}`, text: body });
  };
  const emit = (v: unknown, path: string, indent: string, key: string, comma: boolean) => {
    if (Array.isArray(v)) {
      if (v.length === 0) return push(path, indent, `${key}[]`, comma);
      push(path, indent, `${key}[`, false);
      v.forEach((item, i) => emit(item, `${path}[${i}]`, `${indent}  `, '', i < v.length - 1));
      return push(path, indent, ']', comma);
    }
    if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v).sort(compareCodePoints);
      if (keys.length === 0) return push(path, indent, `${key}{}`, comma);
      push(path, indent, `${key}{`, false);
      keys.forEach((k, i) =>
        emit(
          (v as Record<string, unknown>)[k],
          memberPath(path, k),
          `${indent}  `,
          `${JSON.stringify(k)}: `,
          i < keys.length - 1,
        ),
      );
      return push(path, indent, '}', comma);
    }
    // JSON.stringify writes numbers with Number#toString (and -0 as 0), strings with JSON's escapes.
    push(path, indent, `${key}${JSON.stringify(v) ?? 'null'}`, comma);
  };
  emit(value, '$', '', '', false);
  return { lines, total };
}

/** The canonical text of `value` (every line), for tests and small documents. */
export function canonicalJsonText(value: unknown): string {
  return canonicalLines(value, Infinity)
    .lines.map((l) => l.printed)
    .join('\n');
}
