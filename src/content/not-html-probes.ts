// notifyWhen selector rules on content that is not HTML: there are no elements to read, so each rule
// reads as "nothing could be read", with the reason, rather than as "the element disappeared".
import type { ContentKind } from '../domain/content.js';
import type { Probe } from '../domain/page-facts.js';

/** One probe per selector the monitor's rules read. */
export function notHtmlProbes(selectors: readonly string[], kind: ContentKind): Probe[] {
  return selectors.map((selector) => ({
    selector,
    found: false,
    text: null,
    lang: null,
    error: `the page is not HTML (${kind})`,
  }));
}
