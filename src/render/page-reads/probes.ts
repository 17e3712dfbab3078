// What each notifyWhen rule's selector matches on the page as it is captured: whether anything does,
// the first match's visible text and the language to read its numbers in. The page's JavaScript runs
// in the same world and may redefine querySelector, innerText or String methods, so nothing it returns
// is trusted: every field is checked for its type and bounded here, in the service.
import type { Page } from 'playwright';
import type { Probe } from '../../domain/page-facts.js';

/** The text kept of a match: enough for any price, badge or sentence a rule looks at. */
export const MAX_PROBE_TEXT = 2000;
/** A BCP 47 tag is far shorter; a longer `lang` is not one. */
const MAX_LANG = 64;

export async function readProbes(page: Page, selectors: string[]): Promise<Probe[]> {
  if (selectors.length === 0) return [];
  const read: unknown = await page.evaluate(
    ({ selectors, max }) => {
      const answers: unknown[] = [];
      for (let i = 0; i < selectors.length; i++) {
        let element: Element | null;
        try {
          element = document.querySelector(selectors[i]!);
        } catch {
          answers[i] = { invalid: true };
          continue;
        }
        try {
          if (!element) {
            answers[i] = { found: false };
            continue;
          }
          // innerText is the rendered text (what a reader sees); an SVG or MathML element has none: textContent.
          const text = element instanceof HTMLElement ? element.innerText : element.textContent;
          const lang = element.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang;
          // Cut in the page too, so a huge text does not cross over; the service cuts again.
          answers[i] = { found: true, text: typeof text === 'string' ? text.slice(0, max * 4) : '', lang };
        } catch {
          answers[i] = { unreadable: true }; // the page's own script broke the reading (a redefined DOM method)
        }
      }
      return answers;
    },
    { selectors, max: MAX_PROBE_TEXT },
  );
  const answers = Array.isArray(read) ? read : [];
  return selectors.map((selector, i) => probeOf(selector, answers[i]));
}

function probeOf(selector: string, answer: unknown): Probe {
  const a = (answer !== null && typeof answer === 'object' ? answer : {}) as Record<string, unknown>;
  if (a.invalid === true) return { selector, found: false, text: null, lang: null, error: 'not a valid CSS selector' };
  if (a.unreadable === true)
    return { selector, found: false, text: null, lang: null, error: "the page's script prevented reading the element" };
  if (a.found !== true) return { selector, found: false, text: null, lang: null };
  return { selector, found: true, text: collapse(a.text), lang: languageTag(a.lang) };
}

function collapse(text: unknown): string {
  if (typeof text !== 'string') return '';
  return text
    .slice(0, MAX_PROBE_TEXT * 4)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_PROBE_TEXT);
}

/** A well-formed BCP 47 tag, canonicalized ("EN-us" → "en-US"); null otherwise. */
export function languageTag(lang: unknown): string | null {
  if (typeof lang !== 'string' || lang.length === 0 || lang.length > MAX_LANG) return null;
  try {
    return Intl.getCanonicalLocales(lang.trim())[0] ?? null;
  } catch {
    return null;
  }
}
