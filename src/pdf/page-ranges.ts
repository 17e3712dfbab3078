// Page ranges as people write them ("1-3,5,8-"): 1-based, inclusive, checked against the page count, for
// split and for the pages a watermark or stamp goes on. A range that does not fit the document is the
// option's fault, a 400 naming it, as with a render's pageRanges.
import { invalidRequest } from '../errors.js';

export interface PageRange {
  from: number;
  to: number;
}

/** Parses `text` ("1-3,4-6", "5", "7-" = 7 to the end), in the order given; `path` names the option in errors. */
export function parsePageRanges(text: string, pageCount: number, path: string): PageRange[] {
  const items = text.split(',').map((s) => s.trim());
  return items.map((item) => {
    const m = /^(\d+)(?:\s*-\s*(\d*))?$/.exec(item);
    if (!m)
      throw invalidRequest(`${path} must be page ranges such as "1-3,4-6", not "${text}".`, [
        { path, message: `"${item}" is not a page or a range of pages` },
      ]);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : m[2] === '' ? pageCount : Number(m[2]);
    if (from < 1 || to < from)
      throw invalidRequest(`${path}: "${item}" is not a range of pages (pages count from 1, low to high).`, [
        { path, message: `"${item}" is not a range of pages` },
      ]);
    if (to > pageCount)
      throw invalidRequest(`${path}: "${item}" goes past the last page; the PDF has ${pageCount} pages.`, [
        { path, message: `"${item}" goes past the last page (${pageCount})` },
      ]);
    return { from, to };
  });
}

/** Parts of `every` pages each (the last may be shorter). */
export function everyPages(every: number, pageCount: number): PageRange[] {
  const ranges: PageRange[] = [];
  for (let from = 1; from <= pageCount; from += every) ranges.push({ from, to: Math.min(pageCount, from + every - 1) });
  return ranges;
}

/**
 * The 0-based indexes, ascending and without repeats, of the pages `ranges` names; every page when it is
 * absent or blank (as Gotenberg's watermarkPages). `path` names the option in errors.
 */
export function pageIndexes(ranges: string | undefined, pageCount: number, path: string): number[] {
  if (ranges === undefined || ranges.trim() === '') return Array.from({ length: pageCount }, (_, i) => i);
  const chosen = new Set<number>();
  for (const { from, to } of parsePageRanges(ranges, pageCount, path))
    for (let page = from; page <= to; page++) chosen.add(page - 1);
  return [...chosen].sort((a, b) => a - b);
}
