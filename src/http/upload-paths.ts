// The names of an upload's files: each becomes a path under the render's own origin, so a name must be
// a relative path a URL can reach, and nothing else. What is safe to normalise ("./a.css", "a/./b.png")
// is; what could mean another place (absolute, "..", backslashes, empty segments) or no URL at all
// (NUL and other control characters, "%", "?", "#") is refused with the reason.

/** Longest path of an uploaded file, in characters. */
export const MAX_UPLOAD_PATH_CHARS = 1024;

/** The normalised path, or why the name is refused (a sentence naming the rule). */
export function uploadPath(name: string): { path: string } | { refused: string } {
  if (name === '') return { refused: 'the file has no name' };
  if (name.length > MAX_UPLOAD_PATH_CHARS)
    return { refused: `the name is longer than ${MAX_UPLOAD_PATH_CHARS} characters` };
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) return { refused: 'the name holds a NUL or another control character' };
  if (name.includes('\\')) return { refused: 'the name holds a backslash: separate folders with "/"' };
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name))
    return { refused: 'the name is an absolute path: give it relative to index.html' };
  if (/[%?#]/.test(name)) return { refused: 'the name holds "%", "?" or "#", which a relative URL cannot reach' };
  const segments: string[] = [];
  for (const segment of name.split('/')) {
    if (segment === '') return { refused: 'the name has an empty folder ("//" or a trailing "/")' };
    if (segment === '..') return { refused: 'the name leads out of the upload ("..")' };
    if (segment !== '.') segments.push(segment);
  }
  if (segments.length === 0) return { refused: 'the name is no file' };
  return { path: segments.join('/') };
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json',
  map: 'application/json',
  txt: 'text/plain; charset=utf-8',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  wasm: 'application/wasm',
  pdf: 'application/pdf',
};

/**
 * The Content-Type a file is served with, by its extension (what a static web server does: the type the
 * client sent is often a guess of its own, or application/octet-stream for everything).
 */
export function contentTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  const ext = dot > path.lastIndexOf('/') ? path.slice(dot + 1).toLowerCase() : '';
  return TYPES[ext] ?? 'application/octet-stream';
}
