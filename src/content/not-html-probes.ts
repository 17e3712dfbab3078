// notifyWhen selector rules on content that is not HTML: there are no elements to read, so each rule
// reads as "nothing could be read", with the reason, rather than as "the element disappeared".
import type { ContentKind } from '../domain/content.js';
import type { Probe } from '../domain/page-facts.js';

export function notHtmlProbes(rules: readonly { selector?: string }[], kind: ContentKind): Probe[] {
  return rules.map((rule) => ({
    selector: rule.selector ?? '',
    found: false,
    text: null,
    lang: null,
    error: `the page is not HTML (${kind})`,
  }));
}
