// The elements behind each changed region: what a person needs to see which part of the page a red
// box is ("div.price: $24.99 → $19.99"). Works for any list of regions and any blocks: the blocks of
// the baseline and of this capture, matched by selector (the same element in both), ranked by how much
// of the region they cover and how tightly they fit it, so a price wins over the card around it.
import type { Region, RegionElement } from '../domain/capture-findings.js';
import type { Box } from '../domain/geometry.js';
import type { PageBlock } from '../domain/page-facts.js';

/** Elements listed per region. */
export const MAX_REGION_ELEMENTS = 5;
/** A snippet of an element's text is cut to this many characters (with "…"). */
export const MAX_SNIPPET_CHARS = 120;
/** Page-wide wrappers: listed only when nothing smaller overlaps the region. */
const WRAPPERS = new Set(['html', 'body', 'main']);

interface Candidate {
  selector: string;
  tag: string;
  before: string | null;
  after: string | null;
  overlap: number;
  area: number;
}

export function withElements(regions: Region[], before: PageBlock[], after: PageBlock[]): Region[] {
  const old = usable(before);
  const now = usable(after);
  const texts = { before: textsBySelector(old), after: textsBySelector(now) };
  return regions.map((region) => ({ ...region, elements: elementsBehind(region, old, now, texts) }));
}

type Texts = Record<'before' | 'after', Map<string, string>>;

function elementsBehind(region: Box, before: PageBlock[], after: PageBlock[], texts: Texts): RegionElement[] {
  const bySelector = new Map<string, Candidate>();
  const visit = (block: PageBlock, side: 'before' | 'after') => {
    const overlap = intersection(region, block.box);
    if (overlap <= 0) return;
    const area = block.box.width * block.box.height;
    let c = bySelector.get(block.selector);
    if (!c)
      bySelector.set(
        block.selector,
        (c = { selector: block.selector, tag: block.tag, before: null, after: null, overlap: 0, area }),
      );
    if (c[side] === null) c[side] = snippet(block.text);
    c.overlap = Math.max(c.overlap, overlap);
    c.area = Math.min(c.area, area);
  };
  for (const b of before) visit(b, 'before');
  for (const b of after) visit(b, 'after');
  // A block that overlaps on one side only may still be there on the other (it moved): give its text.
  for (const c of bySelector.values()) {
    c.before ??= texts.before.get(c.selector) ?? null;
    c.after ??= texts.after.get(c.selector) ?? null;
  }
  let candidates = [...bySelector.values()];
  if (candidates.some((c) => !WRAPPERS.has(c.tag))) candidates = candidates.filter((c) => !WRAPPERS.has(c.tag));
  // overlap × (overlap / area): how much of the region it explains, weighted by how much of the element
  // changed. A wrapper as large as the page that covers the region scores far below the element itself.
  const score = (c: Candidate) => (c.overlap * c.overlap) / Math.max(1, c.area);
  candidates.sort(
    (x, y) => score(y) - score(x) || y.overlap - x.overlap || x.area - y.area || x.selector.localeCompare(y.selector),
  );
  return candidates
    .slice(0, MAX_REGION_ELEMENTS)
    .map(({ selector, tag, before, after }) => ({ selector, tag, before, after }));
}

/** Each selector's snippet (its first block: selectors are unique on a page, except over-long ones). */
function textsBySelector(blocks: PageBlock[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const b of blocks) if (!map.has(b.selector)) map.set(b.selector, snippet(b.text));
  return map;
}

const snippet = (text: string) =>
  text.length <= MAX_SNIPPET_CHARS ? text : `${text.slice(0, MAX_SNIPPET_CHARS - 1).trimEnd()}…`;

function intersection(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** The blocks as stored may come from an older capture's file: keep only well-formed ones. */
function usable(blocks: unknown): PageBlock[] {
  if (!Array.isArray(blocks)) return [];
  return (blocks as unknown[]).filter((b): b is PageBlock => {
    if (b === null || typeof b !== 'object') return false;
    const { selector, tag, text, box } = b as Record<string, unknown>;
    return (
      typeof selector === 'string' &&
      typeof tag === 'string' &&
      typeof text === 'string' &&
      box !== null &&
      typeof box === 'object' &&
      ['x', 'y', 'width', 'height'].every((k) => Number.isFinite((box as Record<string, unknown>)[k]))
    );
  });
}
