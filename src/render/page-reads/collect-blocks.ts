// The page side of reading a capture's text blocks: one function that Playwright serializes and runs in
// the page (self-contained: no imports, no closures; it is given short-selector.ts's naming function). Whatever it returns is untrusted; text-blocks.ts
// coerces and bounds it again in the service.

export interface Limits {
  maxBlocks: number;
  maxChars: number;
  maxTotal: number;
  maxSelector: number;
  maxWalked: number;
  maxDepth: number;
}

/** One block as the page reports it: page coordinates (CSS pixels of the viewport), not yet checked. */
export interface RawBlock {
  selector: string;
  tag: string;
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A css or xpath filter of diff.filters: blocks are read inside what they match. */
export interface PageInclude {
  /** Its index in diff.filters. */
  index: number;
  css?: string;
  xpath?: string;
}

/**
 * Runs in the page (serialized by Playwright: self-contained, no imports). A block is a block-level
 * element with the text of its own inline content (text inside a nested block belongs to that block),
 * or a replaced element (img, svg, canvas, video, iframe, input, select, textarea) with its alt text,
 * title or value, so that a region over a picture can still name it. Preorder is reading order.
 */
export function collectBlocks(
  {
    rootSelector,
    ignoreSelectors,
    include = [],
    remove = [],
    limits,
  }: {
    rootSelector: string | null;
    ignoreSelectors: string[];
    /** diff.filters' css and xpath filters: with any, only blocks inside one of their matches are read. */
    include?: PageInclude[];
    /** diff.filters' remove filters: css selectors whose matches are not read (with what is inside). */
    remove?: { index: number; css: string }[];
    limits: Limits;
  },
  shortSelectors: (maxSelector: number) => (el: Element) => string,
): { invalid: true } | { invalidFilter: number } | { blocks: RawBlock[]; missing: number[] } {
  let root: Element | null;
  try {
    root = rootSelector === null ? document.body : document.querySelector(rootSelector);
  } catch {
    return { invalid: true };
  }
  // No textSelector element: nothing is read, and no filter can match inside it.
  if (!root) return { blocks: [], missing: include.map((filter) => filter.index) };
  const scope: Element = root;
  // Ignored elements leave the text as they leave the pixels (an invalid selector already failed the
  // capture where its boxes were measured; here it simply matches nothing).
  const ignored = new Set<Element>();
  for (const selector of ignoreSelectors) {
    try {
      document.querySelectorAll(selector).forEach((el) => ignored.add(el));
    } catch {
      /* measured (and refused) by measureBoxes */
    }
  }
  for (const filter of remove) {
    try {
      document.querySelectorAll(filter.css).forEach((el) => ignored.add(el));
    } catch {
      return { invalidFilter: filter.index };
    }
  }
  // The include filters' matches, each filter's every match: a text or attribute node stands for its element.
  const matched = new Set<Element>();
  const missing: number[] = [];
  const cap = limits.maxBlocks * 5;
  for (const filter of include) {
    let found = 0;
    // Only matches inside the root count (with a textSelector, inside its element).
    const keep = (el: Element | null) => {
      if (!el || !scope.contains(el) || matched.size >= cap) return;
      matched.add(el);
      found++;
    };
    try {
      if (filter.css !== undefined) {
        document.querySelectorAll(filter.css).forEach(keep);
      } else if (filter.xpath !== undefined) {
        // A snapshot of nodes: an expression giving a number or a string (count(), name()) throws here.
        const result = document.evaluate(filter.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        const n = Math.min(result.snapshotLength, cap);
        for (let i = 0; i < n; i++) {
          const node = result.snapshotItem(i);
          if (!node) continue;
          if (node.nodeType === Node.ELEMENT_NODE) keep(node as Element);
          else if (node.nodeType === Node.ATTRIBUTE_NODE) keep((node as Attr).ownerElement);
          else keep(node.parentElement);
        }
      }
    } catch {
      return { invalidFilter: filter.index };
    }
    if (found === 0) missing.push(filter.index);
  }

  const SKIP = new Set([
    'SCRIPT',
    'STYLE',
    'NOSCRIPT',
    'TEMPLATE',
    'HEAD',
    'TITLE',
    'META',
    'LINK',
    'OPTION',
    'OPTGROUP',
    'DATALIST',
  ]);
  const REPLACED = new Set([
    'IMG',
    'SVG',
    'CANVAS',
    'VIDEO',
    'IFRAME',
    'INPUT',
    'SELECT',
    'TEXTAREA',
    'OBJECT',
    'EMBED',
    'AUDIO',
  ]);
  const INLINE = new Set([
    'inline',
    'contents',
    'inline-block',
    'inline-flex',
    'inline-grid',
    'inline-table',
    'ruby',
    'ruby-text',
  ]);

  /** `closed`: takes no text from its inline content (a replaced element, or a hidden one); `nested`: holds a block. */
  interface Entry {
    element: Element;
    closed: boolean;
    hidden: boolean;
    parts: string[];
    length: number;
    nested?: boolean;
  }
  const entries: Entry[] = [];
  let walked = 0;
  let totalChars = 0;

  const add = (entry: Entry, text: string) => {
    // Keep a little over the cap: whitespace collapses later, and the service cuts to the exact limit.
    if (entry.length > limits.maxChars * 2 || totalChars > limits.maxTotal * 2) return;
    entry.parts.push(text);
    entry.length += text.length;
    totalChars += text.length;
  };

  const replacedText = (el: Element): string => {
    const tag = el.tagName.toUpperCase();
    if (tag === 'IMG') return el.getAttribute('alt') ?? '';
    // What someone typed into a field (or a capture step filled in: maybe a secret) is not the page's
    // content: an editable field reads as the page wrote it (its value attribute, its initial text);
    // a read-only or disabled one, which only the page can fill, reads as it shows.
    const fixed = el.hasAttribute('readonly') || el.hasAttribute('disabled');
    if (tag === 'INPUT') {
      const input = el as HTMLInputElement;
      const type = String(input.type).toLowerCase();
      if (type === 'password' || type === 'hidden' || type === 'file') return ''; // never read a secret
      if (type === 'checkbox' || type === 'radio') return input.checked ? 'checked' : 'unchecked';
      return String(fixed ? input.value : input.defaultValue);
    }
    if (tag === 'TEXTAREA') {
      const area = el as HTMLTextAreaElement;
      return String(fixed ? area.value : area.defaultValue);
    }
    if (tag === 'SELECT') {
      const select = el as HTMLSelectElement;
      return Array.from(select.selectedOptions, (o) => String(o.text)).join(', ');
    }
    if (tag === 'SVG') return el.getAttribute('aria-label') ?? el.querySelector('title')?.textContent ?? '';
    return el.getAttribute('aria-label') ?? el.getAttribute('title') ?? el.getAttribute('alt') ?? '';
  };

  const walk = (node: Node, current: Entry | null, depth: number): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      if (current && !current.closed && node.nodeValue) add(current, node.nodeValue);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node as Element;
    const tag = el.tagName.toUpperCase();
    // Empty wrappers are entries too until the end, hence the room above maxBlocks.
    if (
      SKIP.has(tag) ||
      ignored.has(el) ||
      depth > limits.maxDepth ||
      ++walked > limits.maxWalked ||
      entries.length >= limits.maxBlocks * 5
    )
      return;
    const style = getComputedStyle(el);
    if (style.display === 'none') return;
    if (tag === 'BR') {
      if (current) add(current, ' ');
      return;
    }
    const hidden = style.visibility === 'hidden' || style.visibility === 'collapse';
    if (REPLACED.has(tag)) {
      if (!hidden) entries.push({ element: el, closed: true, hidden: false, parts: [replacedText(el)], length: 0 });
      if (current) current.nested = true;
      return; // their children are fallback content or options, not what is shown
    }
    let own = current;
    if (!INLINE.has(style.display)) {
      own = { element: el, closed: hidden, hidden, parts: [], length: 0 }; // a hidden block shows no text of its own
      if (current) current.nested = true;
      entries.push(own);
    } else if (hidden && current) {
      own = { element: el, closed: true, hidden: true, parts: [], length: 0 }; // a hidden inline: its text is not shown
    }
    for (let child = el.firstChild; child; child = child.nextSibling) walk(child, own, depth + 1);
  };
  // Where the walk starts: the root, or with include filters each of their outermost matches inside it,
  // in document order (a match inside another is read as part of it, so no text is read twice).
  const within = (el: Element, set: Set<Element>): boolean => {
    for (let up: Element | null = el; up; up = up.parentElement) if (set.has(up)) return true;
    return false;
  };
  const starts = include.length
    ? Array.from(matched)
        .filter(
          (el) => root.contains(el) && !within(el, ignored) && !(el.parentElement && within(el.parentElement, matched)),
        )
        .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))
    : [root];
  // Each start is always a block (a textSelector's or a filter's match may be an inline element).
  for (const start of starts) {
    if (getComputedStyle(start).display === 'none') continue;
    const top: Entry = { element: start, closed: false, hidden: false, parts: [], length: 0 };
    entries.push(top);
    for (let child = start.firstChild; child; child = child.nextSibling) walk(child, top, 1);
  }

  const selectorOf = shortSelectors(limits.maxSelector);

  const blocks: RawBlock[] = [];
  for (const entry of entries) {
    const text = entry.parts.join('').replace(/\s+/g, ' ').trim();
    if (blocks.length >= limits.maxBlocks) break;
    if (entry.hidden) continue;
    // A wrapper whose text is all in its children is left out; an empty block with none (a coloured box,
    // a rule, a spacer) is kept, so that a changed region over it can still name it.
    if (!text && !entry.closed && entry.nested) continue;
    const r = entry.element.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) continue;
    blocks.push({
      selector: selectorOf(entry.element),
      tag: entry.element.tagName.toLowerCase(),
      text,
      x: r.x,
      y: r.y,
      width: r.width,
      height: r.height,
    });
  }
  return { blocks, missing };
}
