// Bringing what a conversion produced (the result, or its error) to the person who asked for it. Beside
// the form on a laptop it is usually in view already: then nothing moves and the focus stays on Convert,
// so Enter or Space converts again. Otherwise (below the form on a phone, or the page scrolled down to
// the options) it is scrolled into view and focused, so keyboard and screen reader users land on it too.

/** The space the sticky action bar covers at the window's bottom (0 where it is not stuck). */
function coveredAtBottom() {
  const bar = document.querySelector('.actions');
  if (!bar) return 0;
  const box = bar.getBoundingClientRect();
  return box.bottom >= innerHeight - 1 ? box.height : 0;
}

/** True when the element's top, and a useful part of it below, are inside the window. */
export function inView(el) {
  const box = el.getBoundingClientRect();
  const usable = innerHeight - coveredAtBottom();
  return box.top >= 0 && box.top + Math.min(box.height, 120) <= usable;
}

/** Scrolls `el` into view and focuses `focusTarget` (made focusable by script only) unless already in view. */
export function reveal(el, focusTarget = el) {
  if (inView(el)) return false;
  if (!focusTarget.hasAttribute('tabindex')) focusTarget.tabIndex = -1;
  const smooth = !matchMedia('(prefers-reduced-motion: reduce)').matches;
  // preventScroll: the focus alone would scroll as little as possible; the top of the result is wanted.
  focusTarget.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'start', behavior: smooth ? 'smooth' : 'auto' });
  return true;
}
