// What a monitor's capture reads from the page besides its pixels: its visible text blocks and what its
// notifyWhen rules' selectors matched. Read by the renderer, compared by the diff, stored with the capture.
import type { Box } from './geometry.js';
import type { ProductFacts } from './product.js';

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

/**
 * What a monitor's capture reads of the whole page (whatever its textSelector) to tell a failed fetch
 * from the page: a bot check, an empty page, a login form. Judged in src/monitors/suspect.ts; not stored.
 */
export interface PageSigns {
  /** The document's title, whitespace collapsed (cut at PAGE_SIGNS_TEXT characters). */
  title: string;
  /** Characters of the page's visible text (the body's innerText, whitespace collapsed). */
  textLength: number;
  /** The start of that text, PAGE_SIGNS_TEXT characters at most. */
  text: string;
  /** Visible images, svg, canvas, video, iframes, embeds and form fields (counted up to 100). */
  media: number;
  /** Names of the bot-check widgets and scripts found in the document (src/render/page-reads/page-signs.ts). */
  challenges: string[];
  /** A password field is visible. */
  passwordField: boolean;
  /**
   * A visible element of the body (within its first 2,000) draws a box: a background colour or image, a
   * border or a shadow. The html and body elements' own backgrounds do not count.
   */
  drawn: boolean;
}

/** How much of a page's text and title PageSigns keeps. */
export const PAGE_SIGNS_TEXT = 2000;

export interface PageFacts {
  blocks: PageBlock[];
  probes: Probe[];
  /** The main document's HTTP status (the last response of the navigation); absent when unknown. */
  status?: number;
  /** The product's price and stock, when the page declares them or the monitor's selectors read them. */
  product?: ProductFacts | null;
  /** Selecting filters (css, xpath) that matched nothing: their indexes in diff.filters. */
  missingFilters?: number[];
  /** The whole page's signs of a failed fetch (read for every monitor capture). */
  signs?: PageSigns;
}
