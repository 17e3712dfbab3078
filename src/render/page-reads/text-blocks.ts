// The visible text blocks of the page in reading order, read in the same page load and at the same
// moment as the screenshot: what a monitor compares to say which text changed, and what names the
// element behind a changed region. The walk runs in the page's own world, whose JavaScript may have
// redefined anything it calls (getComputedStyle, getBoundingClientRect, querySelectorAll...), so the
// page can only lie about itself: whatever comes back is coerced and bounded here before it is kept.
import type { Page } from 'playwright';
import { renderFailed } from '../../errors.js';
import type { Box } from '../../domain/geometry.js';
import { clampToImage } from './measure-boxes.js';
import type { PageBlock } from '../../domain/page-facts.js';
import { collectBlocks, type Limits, type PageInclude, type RawBlock } from './collect-blocks.js';
import type { Filter } from '../../domain/filters.js';
import { filterLabel } from '../../filters/filter-names.js';
import { shortSelectors } from './short-selector.js';
import type { Layout, Rect } from './page-geometry.js';

/** More blocks than this are dropped (the rest of the page is then not compared). */
export const MAX_BLOCKS = 2000;
/** A block's text is cut to this many characters. */
export const MAX_BLOCK_CHARS = 2000;
/** The text of all blocks together stops at this many characters (about 200 KB kept per capture). */
export const MAX_TOTAL_CHARS = 200_000;
/** A selector longer than this keeps only its last steps: still valid, but maybe not unique. */
export const MAX_SELECTOR_CHARS = 300;
/** The walk visits at most this many elements, so a huge DOM cannot hold the capture. */
export const MAX_WALKED_ELEMENTS = 50_000;
/** Elements nested deeper than this are not read (the walk is recursive: no stack overflow). */
export const MAX_DEPTH = 256;

const LIMITS: Limits = {
  maxBlocks: MAX_BLOCKS,
  maxChars: MAX_BLOCK_CHARS,
  maxTotal: MAX_TOTAL_CHARS,
  maxSelector: MAX_SELECTOR_CHARS,
  maxWalked: MAX_WALKED_ELEMENTS,
  maxDepth: MAX_DEPTH,
};

/** The blocks read, and the css/xpath filters of diff.filters that matched nothing (their indexes). */
export interface ReadBlocks {
  blocks: PageBlock[];
  missing: number[];
}

/**
 * The blocks inside the captured `area` (document coordinates, as for measureBoxes), boxes in image
 * pixels. With a `textSelector`, only blocks inside its first match (the match included); none when it
 * matches nothing. An invalid textSelector fails the capture. Elements matching `ignoreSelectors` (a
 * monitor's diff.ignoreSelectors: a clock, an ad) are not read, nor is anything inside them. diff.filters'
 * page filters apply too: with css or xpath filters only what is inside their matches is read, and
 * `remove` filters' matches are left out; one the page cannot use (an invalid selector, an XPath that does
 * not select nodes) fails the capture, naming it.
 */
export async function readFilteredBlocks(
  page: Page,
  textSelector: string | undefined,
  area: Rect,
  layout: Layout,
  scale: number,
  ignoreSelectors: string[] = [],
  filters: Filter[] = [],
): Promise<ReadBlocks> {
  const include = filters.flatMap((filter, index): PageInclude[] =>
    'css' in filter ? [{ index, css: filter.css }] : 'xpath' in filter ? [{ index, xpath: filter.xpath }] : [],
  );
  const remove = filters.flatMap((filter, index) => ('remove' in filter ? [{ index, css: filter.remove }] : []));
  const args = { rootSelector: textSelector ?? null, ignoreSelectors, include, remove, limits: LIMITS };
  // Both functions go to the page in one expression: the collector calls the selector factory it is given.
  const read: unknown = await page.evaluate(
    `(${collectBlocks.toString()})(${JSON.stringify(args)}, ${shortSelectors.toString()})`,
  );
  if (read && typeof read === 'object' && 'invalid' in read) {
    throw renderFailed(`diff.textSelector: "${textSelector}" is not a valid CSS selector`);
  }
  if (read && typeof read === 'object' && 'invalidFilter' in read) {
    // The page names the filter by index; only an index that is one of ours is believed.
    const index = Number(read.invalidFilter);
    const own = [...include, ...remove].some((f) => f.index === index);
    throw renderFailed(
      own
        ? `${filterLabel(filters, index)} cannot be used on this page: ${'xpath' in filters[index]! ? 'the XPath must select nodes' : 'not a valid CSS selector'}`
        : 'diff.filters: the page could not apply the filters',
    );
  }
  // Only indexes of our own css/xpath filters, each once: the page may report anything.
  const reported =
    read && typeof read === 'object' && 'missing' in read && Array.isArray(read.missing) ? read.missing : [];
  const missing = include.map((f) => f.index).filter((index) => reported.includes(index));
  const raw =
    read && typeof read === 'object' && 'blocks' in read && Array.isArray(read.blocks)
      ? read.blocks.slice(0, MAX_BLOCKS)
      : [];
  const image = { width: Math.ceil(area.width * scale), height: Math.ceil(area.height * scale) };
  const blocks: PageBlock[] = [];
  let total = 0;
  for (const item of raw as unknown[]) {
    const found = coerceBlock(item);
    if (!found) continue;
    // Element boxes are relative to the layout viewport; its scroll makes them document positions.
    const x0 = (found.x + layout.layoutScroll.x - area.x) * scale;
    const y0 = (found.y + layout.layoutScroll.y - area.y) * scale;
    const box: Box | null = clampToImage(x0, y0, x0 + found.width * scale, y0 + found.height * scale, image);
    if (!box) continue; // wholly outside the captured area
    const text = found.text.slice(0, Math.min(MAX_BLOCK_CHARS, MAX_TOTAL_CHARS - total));
    if (found.text && !text) break; // the total is spent
    total += text.length;
    blocks.push({ selector: found.selector, tag: found.tag, text, box });
  }
  return { blocks, missing };
}

/** The blocks alone, without diff.filters (see readFilteredBlocks). */
export async function readBlocks(
  page: Page,
  textSelector: string | undefined,
  area: Rect,
  layout: Layout,
  scale: number,
  ignoreSelectors: string[] = [],
): Promise<PageBlock[]> {
  return (await readFilteredBlocks(page, textSelector, area, layout, scale, ignoreSelectors)).blocks;
}

/** One block as the page returned it, made safe: strings of bounded length, finite numbers; null if unusable. */
export function coerceBlock(item: unknown): RawBlock | null {
  if (item === null || typeof item !== 'object') return null;
  const r = item as Record<string, unknown>;
  // String() of a primitive only: an object's toString could be the page's code, but values coming out
  // of page.evaluate are plain data, so anything that is not a string is simply refused.
  if (typeof r.selector !== 'string' || typeof r.tag !== 'string' || typeof r.text !== 'string') return null;
  const nums = [r.x, r.y, r.width, r.height];
  if (!nums.every((n) => typeof n === 'number' && Number.isFinite(n))) return null;
  const selector = shortSelector(r.selector);
  const tag = r.tag.toLowerCase().slice(0, 40);
  if (!selector || !/^[a-z][a-z0-9-]*$/.test(tag)) return null; // too long to cut into whole steps, or no tag
  const text = r.text
    .slice(0, MAX_BLOCK_CHARS * 2)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_BLOCK_CHARS);
  const [x, y, width, height] = nums as number[];
  return { selector, tag, text, x: x!, y: y!, width: width!, height: height! };
}

/** A selector over MAX_SELECTOR_CHARS keeps its last whole ` > ` steps that fit (or is refused: ""). */
function shortSelector(selector: string): string {
  if (selector.length <= MAX_SELECTOR_CHARS) return selector.trim();
  const tail = selector.slice(-MAX_SELECTOR_CHARS);
  const cut = tail.indexOf(' > ');
  return cut < 0 ? '' : tail.slice(cut + 3).trim();
}
