// The picture of content that is not a web page (JSON, text, bytes): a plain HTML page built here,
// rendered by the existing renderer with JavaScript off, so the dashboard and the pixel diff have an
// image as for any page. Everything that came from the response is escaped. The layout is fixed (one
// monospace line every LINE_HEIGHT px), so where each compared line is in the picture is known by
// arithmetic rather than read from the page.
import type { Box } from '../domain/geometry.js';

const PADDING = 16;
const LINE_HEIGHT = 20;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE =
  'html,body{margin:0;background:#fff;color:#111}' +
  `pre{margin:0;padding:${PADDING}px;font:14px/${LINE_HEIGHT}px "DejaVu Sans Mono",monospace;white-space:pre;overflow:hidden}` +
  'p{margin:0 16px 16px;font:13px/20px sans-serif;color:#555}' +
  '.card{margin:24px;padding:20px 24px;border:1px solid #ccc;border-radius:8px;font:15px/24px sans-serif;' +
  'display:inline-block;min-width:420px}' +
  '.card h1{margin:0 0 12px;font-size:20px}.card dt{color:#555;margin-top:8px}' +
  '.card dd{margin:0;font-family:"DejaVu Sans Mono",monospace;word-break:break-all}';

const page = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>${STYLE}</style></head><body>${body}</body></html>`;

/**
 * Characters of a line drawn: a longer line is cut in the picture (it is compared whole), so one long
 * line cannot make the picture wider than any image cap allows.
 */
export const PICTURE_LINE_CHARS = 160;

/** The lines, one under the other; `more` lines that were compared but are not drawn are counted below. */
export function linesPage(lines: string[], more: number): string {
  const note = more > 0 ? `<p>… and ${more.toLocaleString('en-US')} more lines, compared but not drawn</p>` : '';
  const drawn = lines.map((l) => escapeHtml(l.length > PICTURE_LINE_CHARS ? `${l.slice(0, PICTURE_LINE_CHARS)}…` : l));
  return page(`<pre>${drawn.join('\n')}</pre>${note}`);
}

/** Where line `index` (0-based) of linesPage is in the picture, image pixels. */
export function lineBox(index: number, imageWidth: number, deviceScaleFactor: number): Box {
  const s = deviceScaleFactor;
  return {
    x: Math.round(PADDING * s),
    y: Math.round((PADDING + index * LINE_HEIGHT) * s),
    width: Math.max(1, imageWidth - Math.round(2 * PADDING * s)),
    height: Math.round(LINE_HEIGHT * s),
  };
}

export interface BytesFacts {
  mediaType: string | null;
  bytes: number;
  sha256: string;
  cut?: string;
}

/** The one compared line of binary content: what it is, its size and its hash, so any change is a text change. */
export function bytesLine(f: BytesFacts): string {
  return (
    `Watching bytes: ${f.mediaType ?? 'no declared type'}, ${f.bytes.toLocaleString('en-US')} bytes, ` +
    `SHA-256 ${f.sha256}${f.cut ? ` (${f.cut})` : ''}`
  );
}

/** A card saying which bytes are watched. */
export function bytesPage(f: BytesFacts): string {
  const row = (name: string, value: string) => `<dt>${name}</dt><dd>${escapeHtml(value)}</dd>`;
  return page(
    '<div class="card"><h1>Watching bytes</h1><dl>' +
      row('Type', f.mediaType ?? 'not declared') +
      row('Size', `${f.bytes.toLocaleString('en-US')} bytes`) +
      row('SHA-256', f.sha256) +
      (f.cut ? row('Read', f.cut) : '') +
      '</dl></div>',
  );
}
