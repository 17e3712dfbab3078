// Characters the page shows that no font could draw (they come out as boxes, "tofu"), found on every
// render just before the capture. In the page: the distinct characters of the drawn text, grouped by the
// font their element asks for; each is measured on a canvas in that font against a code point no font has
// (so both fall to the primary font's .notdef box); one as wide as the box is drawn next to it, and only
// identical pixels make it missing. A canvas falls back through the same fonts as layout (fontconfig, and
// the page's loaded web fonts), so what it draws is what the capture draws. One evaluate round trip.
// The walk runs in the page's own world, which may have redefined what it calls: the page can only lie
// about itself, and whatever comes back is coerced and bounded here.
import type { Page } from 'playwright';
import type { MissingGlyph } from '../../domain/render-diagnostics.js';
import { renderFailed } from '../../errors.js';
import { shortSelectors } from './short-selector.js';

/** At most this many distinct characters are reported (the first ones in document order). */
export const MAX_MISSING_GLYPHS = 50;
/** The walk reads at most this many text nodes and this many distinct characters (the rest are not checked). */
export const MAX_TEXT_NODES = 100_000;
export const MAX_DISTINCT = 20_000;
const MAX_SELECTOR_CHARS = 300;

export interface ScanLimits {
  maxReported: number;
  maxTextNodes: number;
  maxDistinct: number;
  maxSelector: number;
}

/**
 * Runs in the page (serialized: self-contained, no imports; `makeSelectors` is short-selector.ts, passed
 * along in the same expression). Returns the characters drawn with no real glyph and the element that
 * first shows each, in document order.
 *
 * Two passes keep a page without boxes cheap. First every distinct character is measured once in the
 * default sans-serif: fallback searches the same system fonts whatever font an element asks for, so one
 * drawn there is drawn everywhere. Only those as wide as the box (candidates: usually none) are looked at
 * again where they appear, in their element's own font (a web font may have them), visible elements only.
 */
export function scanMissingGlyphs(
  limits: ScanLimits,
  makeSelectors: (maxSelector: number) => (el: Element) => string,
): { char: string; selector: string }[] {
  const body = document.body;
  if (!body) return [];
  // Not drawn as text: scripts and styles, and what a template or noscript (with scripting on) holds as raw text.
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE']);
  // Never a glyph of their own: whitespace, controls, format characters (ZWJ, variation selectors, tags),
  // combining marks (drawn on their base), lone surrogates.
  const NOT_A_GLYPH = /[\p{White_Space}\p{Cc}\p{Cf}\p{M}\p{Cs}]/u;
  // ASCII is not looked at: every font Chromium can fall back to has it. A text node of ASCII alone costs a
  // regular expression test, and a page of it no canvas at all.
  const BEYOND_ASCII = /[^\0-~]/;
  // A code point no font has (plane 16 private use): it draws the primary font's .notdef box.
  const NO_GLYPH = '\u{10FFFD}';

  const textNodes = (visit: (text: string, parent: Element) => boolean) => {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    let nodes = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (++nodes > limits.maxTextNodes) return;
      const text = node.nodeValue;
      const parent = node.parentElement;
      if (!text || !parent || !BEYOND_ASCII.test(text) || SKIP.has(parent.tagName.toUpperCase())) continue;
      if (!visit(text, parent)) return;
    }
  };

  // Pass 1: the distinct characters, measured in the default font.
  const distinct = new Set<string>();
  textNodes((text) => {
    for (const ch of text) {
      if (ch <= '~' || distinct.has(ch) || NOT_A_GLYPH.test(ch)) continue;
      distinct.add(ch);
      if (distinct.size >= limits.maxDistinct) return false;
    }
    return true;
  });
  if (!distinct.size) return [];
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) return [];
  const pixels = (s: string) => {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.fillText(s, 8, 40);
    return ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  };
  ctx.font = '32px sans-serif';
  let boxWidth = ctx.measureText(NO_GLYPH).width;
  const candidates = new Set<string>();
  for (const ch of distinct) if (Math.abs(ctx.measureText(ch).width - boxWidth) <= 0.01) candidates.add(ch);
  if (!candidates.size) return [];

  // Pass 2: where the candidates appear, grouped by their element's font.
  interface Group {
    font: string;
    chars: Map<string, { el: Element; order: number }>;
  }
  const groups = new Map<string, Group>();
  const groupOfElement = new Map<Element, Group | null>(); // null: its text is not drawn
  const groupOf = (el: Element): Group | null => {
    let group = groupOfElement.get(el);
    if (group !== undefined) return group;
    group = null;
    // checkVisibility: false under display:none (the element's or an ancestor's), content-visibility:hidden.
    if (typeof el.checkVisibility !== 'function' || el.checkVisibility()) {
      const style = getComputedStyle(el);
      const font = `${style.fontStyle} ${style.fontWeight} 32px ${style.fontFamily}`;
      group = groups.get(font) ?? null;
      if (!group) groups.set(font, (group = { font, chars: new Map() }));
    }
    groupOfElement.set(el, group);
    return group;
  };
  let order = 0;
  textNodes((text, parent) => {
    for (const ch of text) {
      if (!candidates.has(ch)) continue;
      const group = groupOf(parent);
      if (!group) return true;
      if (!group.chars.has(ch)) group.chars.set(ch, { el: parent, order: order++ });
    }
    return true;
  });
  const found: { char: string; el: Element; order: number }[] = [];
  for (const group of groups.values()) {
    ctx.font = group.font;
    boxWidth = ctx.measureText(NO_GLYPH).width;
    let box: Uint8ClampedArray | undefined;
    for (const [ch, where] of group.chars) {
      if (Math.abs(ctx.measureText(ch).width - boxWidth) > 0.01) continue;
      // As wide as the box: a real glyph of that width draws other pixels.
      if (!box) {
        canvas.width = Math.ceil(boxWidth) + 16; // resizing resets the context's state: set the font again
        canvas.height = 56;
        ctx.font = group.font;
        box = pixels(NO_GLYPH);
      }
      const drawn = pixels(ch);
      let same = drawn.length === box.length;
      for (let i = 0; same && i < drawn.length; i++) same = drawn[i] === box[i];
      if (same) found.push({ char: ch, ...where });
    }
  }
  found.sort((a, b) => a.order - b.order);
  const selectorOf = makeSelectors(limits.maxSelector);
  const reported = new Set<string>();
  const out: { char: string; selector: string }[] = [];
  for (const { char, el } of found) {
    if (reported.has(char)) continue;
    reported.add(char);
    out.push({ char, selector: selectorOf(el) });
    if (out.length >= limits.maxReported) break;
  }
  return out;
}

const LIMITS: ScanLimits = {
  maxReported: MAX_MISSING_GLYPHS + 1, // one more than is kept: to know that the list was cut
  maxTextNodes: MAX_TEXT_NODES,
  maxDistinct: MAX_DISTINCT,
  maxSelector: MAX_SELECTOR_CHARS,
};
// Both functions go to the page in one expression: the scan calls the selector factory it is given.
const EXPRESSION = `(${scanMissingGlyphs.toString()})(${JSON.stringify(LIMITS)}, ${shortSelectors.toString()})`;

export interface MissingGlyphs {
  /** The first MAX_MISSING_GLYPHS characters in document order. */
  glyphs: MissingGlyph[];
  /** More characters had no glyph than `glyphs` lists. */
  more: boolean;
}

/** The characters of the page drawn with no real glyph: at most MAX_MISSING_GLYPHS, first in document order. */
export async function findMissingGlyphs(page: Page): Promise<MissingGlyphs> {
  return coerceMissingGlyphs(await page.evaluate(EXPRESSION));
}

/**
 * The report of a render, read just before its capture. With `failOnMissingGlyphs` a non-empty report fails
 * the render (422 render_failed) naming each character and the element that shows it.
 */
export async function checkGlyphs(page: Page, req: { failOnMissingGlyphs?: boolean }): Promise<MissingGlyphs> {
  const found = await findMissingGlyphs(page);
  if (req.failOnMissingGlyphs && found.glyphs.length) throw missingGlyphsError(found);
  return found;
}

export function missingGlyphsError({ glyphs, more }: MissingGlyphs) {
  const listed = glyphs.map((g) => `${g.char} ${g.codePoint}`).join(', ');
  const what = glyphs.length === 1 ? 'this character' : `these ${glyphs.length} characters`;
  return renderFailed(
    `no font could draw ${more ? `more than ${glyphs.length} characters; the first ${glyphs.length}` : what}: ` +
      `${listed} (failOnMissingGlyphs)`,
    undefined,
    false,
    // As every failure rule's details: the option as path, what broke it (here: where) in the message.
    glyphs.map((g) => ({
      path: 'failOnMissingGlyphs',
      message: `${g.selector}: ${g.codePoint} "${g.char}" has no glyph in any font`,
    })),
  );
}

/** What the page returned, as plain data only: one code point per entry, a bounded selector, no repeats. */
export function coerceMissingGlyphs(read: unknown): MissingGlyphs {
  const glyphs: MissingGlyph[] = [];
  if (!Array.isArray(read)) return { glyphs, more: false };
  const seen = new Set<string>();
  for (const item of read.slice(0, MAX_MISSING_GLYPHS)) {
    if (typeof item !== 'object' || item === null) continue;
    const { char, selector } = item as Record<string, unknown>;
    if (typeof char !== 'string' || typeof selector !== 'string') continue;
    const cp = char.codePointAt(0);
    if (cp === undefined || String.fromCodePoint(cp) !== char || seen.has(char)) continue;
    seen.add(char);
    glyphs.push({ char, codePoint: codePointName(cp), selector: selector.slice(0, MAX_SELECTOR_CHARS * 2) });
  }
  return { glyphs, more: read.length > MAX_MISSING_GLYPHS };
}

/** "U+4E2D", at least four hex digits as Unicode writes them. */
export function codePointName(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
