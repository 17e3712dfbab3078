// Where things are on the page, asked of the browser over CDP rather than of the page's JavaScript.
// A hostile page can redefine devicePixelRatio, visualViewport, scrollWidth, getBoundingClientRect...
// in its own world; the protocol reads layout from the engine, so the numbers that decide an image's
// size are real ones. Every number is still checked: a render that gets no usable size fails.
import type { CDPSession } from 'playwright';
import { renderFailed } from '../../errors.js';

/** A rectangle in document coordinates (CSS pixels from the top-left of the page, not the viewport). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Layout {
  /** The whole document's size, CSS px (at least the viewport). */
  content: { width: number; height: number };
  /** The visible region (the visual viewport) in document coordinates, CSS px. */
  visible: Rect;
  /** Pinch zoom of the visual viewport (a mobile page's initial-scale); 1 elsewhere. */
  pinchZoom: number;
  /** The layout viewport's scroll position: what element boxes are relative to. */
  layoutScroll: { x: number; y: number };
}

const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
const positive = (n: unknown): n is number => finite(n) && n > 0;

export async function readLayout(cdp: CDPSession): Promise<Layout> {
  const m = await cdp.send('Page.getLayoutMetrics');
  const { cssContentSize: size, cssVisualViewport: view, cssLayoutViewport: layout } = m;
  if (!positive(size.width) || !positive(size.height)) throw renderFailed('the page has no usable size to capture');
  if (
    !finite(view.pageX) ||
    !finite(view.pageY) ||
    !positive(view.clientWidth) ||
    !positive(view.clientHeight) ||
    !positive(view.scale) ||
    !finite(layout.pageX) ||
    !finite(layout.pageY)
  ) {
    throw renderFailed('the page has no usable viewport to capture');
  }
  return {
    content: { width: size.width, height: size.height },
    visible: { x: view.pageX, y: view.pageY, width: view.clientWidth, height: view.clientHeight },
    pinchZoom: view.scale,
    layoutScroll: { x: layout.pageX, y: layout.pageY },
  };
}

/**
 * The border box of the first element matching a CSS selector, in document coordinates. CDP's
 * querySelector and box model are the engine's own, not the page's (which may be redefined).
 */
export async function elementRect(cdp: CDPSession, selector: string, layout: Layout): Promise<Rect> {
  const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
  const found = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector }).catch(() => {
    throw renderFailed(`selector "${selector}" is not a valid CSS selector`);
  });
  if (!found.nodeId) throw renderFailed(`selector "${selector}" matched no element`);
  // No box model at all (display: none, or not laid out) is the same as an empty one.
  const model = await cdp.send('DOM.getBoxModel', { nodeId: found.nodeId }).catch(() => undefined);
  const quad = model?.model.border ?? [];
  const xs = [quad[0], quad[2], quad[4], quad[6]];
  const ys = [quad[1], quad[3], quad[5], quad[7]];
  if (![...xs, ...ys].every(finite))
    throw renderFailed(`selector "${selector}" matched an element with no visible box`);
  const left = Math.min(...(xs as number[]));
  const top = Math.min(...(ys as number[]));
  const width = Math.max(...(xs as number[])) - left;
  const height = Math.max(...(ys as number[])) - top;
  if (!(width > 0 && height > 0)) throw renderFailed(`selector "${selector}" matched an element with no visible box`);
  // The box model is relative to the layout viewport; the layout viewport's scroll makes it a page position.
  return { x: left + layout.layoutScroll.x, y: top + layout.layoutScroll.y, width, height };
}
