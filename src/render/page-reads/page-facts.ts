// What a monitor's capture reads from the page besides its pixels, in the same page load and at the
// same moment as the screenshot: the visible text blocks (to say which text changed and which element
// sits behind a changed region), the elements its notifyWhen rules look at, the product's price and stock,
// and the whole page's signs of a failed fetch (page-signs.ts).
import type { Page } from 'playwright';
import type { PageFacts } from '../../domain/page-facts.js';
import type { Filter } from '../../domain/filters.js';
import type { Layout, Rect } from './page-geometry.js';
import { readFilteredBlocks } from './text-blocks.js';
import { readProbes } from './probes.js';
import { readProduct } from './product.js';
import { readPageSigns } from './page-signs.js';

/** What to read: asked for by monitor captures only (a plain render reads nothing). */
export interface FactsRequest {
  /** Only blocks inside the first match of this selector (diff.textSelector). */
  textSelector?: string;
  /** Elements whose text is not read (diff.ignoreSelectors: what is left out of the pixels is left out of the text). */
  ignoreSelectors?: string[];
  /** The selectors the monitor's notifyWhen rules read (each once). */
  probeSelectors: string[];
  /** The monitor's diff.priceSelector and diff.availabilitySelector (the product is read on every monitor capture). */
  priceSelector?: string;
  availabilitySelector?: string;
  /** diff.filters: its css, xpath and remove filters apply in the page (the others are skipped here). */
  filters?: Filter[];
}

/**
 * The facts of the page as it is about to be captured. `area` is the captured region in document
 * coordinates (the clip, or the viewport at its scroll) and `scale` the device scale, as for measureBoxes.
 */
export async function readPageFacts(
  page: Page,
  request: FactsRequest,
  area: Rect,
  layout: Layout,
  scale: number,
): Promise<PageFacts> {
  const [read, probes, product, signs] = [
    await readFilteredBlocks(page, request.textSelector, area, layout, scale, request.ignoreSelectors, request.filters),
    await readProbes(page, request.probeSelectors),
    await readProduct(page, request),
    await readPageSigns(page),
  ];
  return {
    blocks: read.blocks,
    probes,
    product,
    signs,
    ...(request.filters?.length ? { missingFilters: read.missing } : {}),
  };
}
