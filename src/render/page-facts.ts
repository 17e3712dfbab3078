// What a monitor's capture reads from the page besides its pixels, in the same page load and at the
// same moment as the screenshot: the visible text blocks (to say which text changed and which element
// sits behind a changed region) and the elements its notifyWhen rules look at.
import type { Page } from 'playwright';
import type { Box } from '../domain/geometry.js';
import type { Layout, Rect } from './page-geometry.js';
import { readBlocks } from './text-blocks.js';
import { readProbes } from './probes.js';

/** A visible block-level element (or a replaced one: img, svg, canvas, video, iframe, input) with its own text. */
export interface PageBlock {
  /** A short CSS selector unique on the page when it was captured. */
  selector: string;
  /** Lower-case tag name. */
  tag: string;
  /** Its visible text, whitespace collapsed (alt text or value for replaced elements; may be empty). */
  text: string;
  /** Where it is, in image pixels of this capture. */
  box: Box;
}

/** What one notifyWhen rule's selector matched. */
export interface Probe {
  selector: string;
  /** Something on the page matches the selector. */
  found: boolean;
  /** The first match's visible text, whitespace collapsed; null when nothing matched. */
  text: string | null;
  /** The language to read its numbers in: its closest `lang` attribute, else the document's; null when none. */
  lang: string | null;
  /** Why the selector could not be used (e.g. invalid); then found is false. */
  error?: string;
}

export interface PageFacts {
  blocks: PageBlock[];
  probes: Probe[];
}

/** What to read: asked for by monitor captures only (a plain render reads nothing). */
export interface FactsRequest {
  /** Only blocks inside the first match of this selector (diff.textSelector). */
  textSelector?: string;
  /** Elements whose text is not read (diff.ignoreSelectors: what is left out of the pixels is left out of the text). */
  ignoreSelectors?: string[];
  /** The selectors of the monitor's notifyWhen rules, in order. */
  probeSelectors: string[];
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
  const [blocks, probes] = [
    await readBlocks(page, request.textSelector, area, layout, scale, request.ignoreSelectors),
    await readProbes(page, request.probeSelectors),
  ];
  return { blocks, probes };
}
