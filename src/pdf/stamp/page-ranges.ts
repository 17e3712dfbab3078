// Which pages a watermark or stamp goes on: "1-3,5" (1-based, ranges inclusive), checked against the
// document's page count, so a mistyped range is refused by name instead of stamping nothing.
import { invalidRequest } from '../../errors.js';

/** What `pages` accepts: page numbers and ranges, comma-separated ("1-3,5"). Linear: no nested repeats. */
export const PAGE_RANGES_PATTERN = /^ *\d{1,6}(?: *- *\d{1,6})?(?: *, *\d{1,6}(?: *- *\d{1,6})?)* *$/;

/**
 * The 0-based indexes, ascending and without repeats, of the pages `ranges` names in a document of
 * `pageCount` pages; every page when `ranges` is absent or empty (as Gotenberg's watermarkPages). `path` names the option in the error.
 */
export function pageIndexes(ranges: string | undefined, pageCount: number, path: string): number[] {
  if (ranges === undefined || ranges.trim() === '') return Array.from({ length: pageCount }, (_, i) => i);
  if (!PAGE_RANGES_PATTERN.test(ranges)) {
    throw invalidRequest(`${path} must list page numbers and ranges such as "1-3,5"; correct it.`, [
      { path, message: 'must be page numbers and ranges such as "1-3,5"' },
    ]);
  }
  const chosen = new Set<number>();
  for (const part of ranges.split(',')) {
    const [first, last = first] = part.split('-').map((n) => Number(n.trim())) as [number, number?];
    if (first < 1 || last < first || last > pageCount) {
      const message =
        last < first
          ? `the range ${first}-${last} runs backwards`
          : `page ${first < 1 ? first : last} is outside the document's ${pageCount} page${pageCount === 1 ? '' : 's'}`;
      throw invalidRequest(`${path}: ${message}; name pages from 1 to ${pageCount}.`, [{ path, message }]);
    }
    for (let page = first; page <= last; page++) chosen.add(page - 1);
  }
  return [...chosen].sort((a, b) => a - b);
}
