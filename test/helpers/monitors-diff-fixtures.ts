// Pages for test/integration/monitors-diff.test.ts: fixture routes whose HTML the test swaps between
// captures, and the small pixel helpers the change-detection assertions share.
import type { FixtureServer } from './fixture-server.js';
import type { DecodedPng, Rgba } from './png.js';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A page with margins reset and a white background, so CSS pixel (x, y) is image pixel (x, y). */
export const doc = (body: string, style = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;background:#fff}${style}</style></head>` +
  `<body>${body}</body></html>`;

/** An absolutely positioned element at a known box (CSS px = image px at the default scale). */
export const at = (box: Box, extra = '') =>
  `position:absolute;left:${box.x}px;top:${box.y}px;width:${box.width}px;height:${box.height}px;margin:0;box-sizing:border-box;${extra}`;

export interface SwitchablePage {
  /** Absolute URL of the page. */
  url: string;
  /** Serve this HTML from now on. */
  set(html: string): void;
  /** Serve `html` to the next request only; the one after gets the current page again. */
  once(html: string): void;
  /** How many times the page itself was requested so far. */
  hits(): number;
}

/** A route on the fixture server that serves whatever the test last `set`. */
export function switchablePage(fx: FixtureServer, path: string, initial: string): SwitchablePage {
  let current = initial;
  let next: string | undefined;
  fx.route(path, (req, res) => {
    const html = next ?? current;
    // A capture first fetches the page's first bytes from the service itself to learn its kind
    // (docs/monitors.md, "What a monitor reads"); "once" and "hits" are about the browser's loads.
    if (fromBrowser(req)) next = undefined;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  return {
    url: `${fx.url}${path}`,
    set: (html) => {
      current = html;
    },
    once: (html) => {
      next = html;
    },
    hits: () => fx.requests.filter((r) => r.path === path && fromBrowser(r)).length,
  };
}

const fromBrowser = (req: { headers: { 'user-agent'?: string } }) => !!req.headers['user-agent']?.includes('Chrome');

/** The diff image paints every counted pixel in pure red. */
export const isRed = (p: Rgba) => p.r === 255 && p.g === 0 && p.b === 0;
/** Reddish, loosely: clearly more red than anything else. */
export const isReddish = (p: Rgba) => p.r >= 200 && p.g <= 80 && p.b <= 80;

export const samePixel = (a: Rgba, b: Rgba) => a.r === b.r && a.g === b.g && a.b === b.b && a.a === b.a;

/** Every pixel of `png` inside `box` (clamped), with its coordinates. */
export function* pixelsIn(png: DecodedPng, box: Box): Generator<{ x: number; y: number; p: Rgba }> {
  for (let y = Math.max(0, box.y); y < Math.min(png.height, box.y + box.height); y++) {
    for (let x = Math.max(0, box.x); x < Math.min(png.width, box.x + box.width); x++)
      yield { x, y, p: png.pixel(x, y) };
  }
}

/** Bounds of the pixels that differ between two same-size images inside `within` (undefined when none). */
export function differingBounds(a: DecodedPng, b: DecodedPng, within: Box): Box | undefined {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -1,
    y1 = -1;
  for (const { x, y, p } of pixelsIn(a, within)) {
    if (samePixel(p, b.pixel(x, y))) continue;
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return x1 < 0 ? undefined : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/** `inner` lies within `outer` grown by `slack` px on every side. */
export const within = (inner: Box, outer: Box, slack = 0) =>
  inner.x >= outer.x - slack &&
  inner.y >= outer.y - slack &&
  inner.x + inner.width <= outer.x + outer.width + slack &&
  inner.y + inner.height <= outer.y + outer.height + slack;

export const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
