// Bounding the cost of a PDF, not just refusing the answer: Chromium is asked for at most `cap`
// pages of what the caller selected, so a document of 8,000 pages is laid out but never printed whole.

/**
 * The caller's `pageRanges` ("1-3,5"; undefined = every page) cut down to its first `cap` pages.
 * Chromium prints a selection in page order with overlaps merged, so the cut is taken in that order.
 * A range Chromium refuses anyway (start 0, start > end) is passed through unchanged for it to refuse.
 */
export function capPageRanges(pageRanges: string | undefined, cap: number): string {
  if (pageRanges === undefined) return `1-${cap}`;
  const ranges = pageRanges.split(',').map((part) => {
    const [from, to = from] = part.split('-').map((n) => Number(n.trim()));
    return [from!, to] as [number, number];
  });
  if (ranges.some(([from, to]) => !(from >= 1 && from <= to))) return pageRanges;
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of ranges) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  const out: string[] = [];
  let left = cap;
  for (const [from, to] of merged) {
    if (left === 0) break;
    const end = Math.min(to, from + left - 1);
    out.push(from === end ? String(from) : `${from}-${end}`);
    left -= end - from + 1;
  }
  return out.join(',');
}
