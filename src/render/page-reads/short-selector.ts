// The page side of naming an element briefly, for what the service reports about a page (text blocks,
// missing glyphs). Self-contained (no imports, no closures): Playwright serializes it into the page, where
// it is composed with the function that uses it (see missing-glyphs.ts).

/**
 * Runs in the page: returns a function naming an element with a short selector unique in the document:
 * #id, else tag.classes, else a child path of tag:nth-of-type steps up to the nearest ancestor that has a
 * unique id (or body). A path longer than `maxSelector` keeps its last steps (valid, though maybe not unique).
 */
export function shortSelectors(maxSelector: number): (el: Element) => string {
  const esc = (s: string) => CSS.escape(s);
  // Both memoized: many elements share a class selector or a parent, and a query per element over a DOM of
  // 50,000 elements took seconds.
  const counts = new Map<string, number>();
  const count = (selector: string) => {
    let n = counts.get(selector);
    if (n === undefined) {
      try {
        n = document.querySelectorAll(selector).length;
      } catch {
        n = 0;
      }
      counts.set(selector, n);
    }
    return n;
  };
  const steps = new Map<Element, string>();
  const step = (el: Element): string => {
    const known = steps.get(el);
    if (known) return known;
    const parent = el.parentElement;
    if (!parent) return el.tagName.toLowerCase();
    // Name every child of this parent at once: each one's tag, with :nth-of-type when it has namesakes.
    const byTag = new Map<string, Element[]>();
    for (let sib = parent.firstElementChild; sib; sib = sib.nextElementSibling) {
      const tag = sib.tagName.toLowerCase();
      const same = byTag.get(tag);
      if (same) same.push(sib);
      else byTag.set(tag, [sib]);
    }
    for (const [tag, same] of byTag)
      same.forEach((sib, i) => steps.set(sib, same.length > 1 ? `${tag}:nth-of-type(${i + 1})` : tag));
    return steps.get(el) ?? el.tagName.toLowerCase();
  };
  const uniqueId = (el: Element) => (el.id && count(`#${esc(el.id)}`) === 1 ? `#${esc(el.id)}` : null);
  return (el: Element): string => {
    const byId = uniqueId(el);
    if (byId) return byId;
    const tag = el.tagName.toLowerCase();
    if (tag === 'body' || tag === 'html') return tag;
    const classes = Array.from(el.classList)
      .slice(0, 3)
      .map((c) => `.${esc(c)}`)
      .join('');
    if (classes && count(tag + classes) === 1) return tag + classes;
    const path: string[] = [];
    for (let at: Element | null = el; at; at = at.parentElement) {
      const anchor = at === el ? null : uniqueId(at);
      if (anchor) {
        path.unshift(anchor);
        break;
      }
      const name = at.tagName.toLowerCase();
      if (name === 'body' || name === 'html') {
        path.unshift(name);
        break;
      }
      const next = step(at);
      if (path.length && path.join(' > ').length + next.length + 3 > maxSelector) break;
      path.unshift(next);
    }
    return path.join(' > ');
  };
}
