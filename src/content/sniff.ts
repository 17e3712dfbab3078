// Which kind of content a response is, decided from its declared media type AND its first bytes, never
// from the URL: a server that says application/pdf may send an HTML error page, and text is often sent
// as application/octet-stream. Only the first bytes are looked at (SNIFF_BYTES), so the decision is the
// same whether the body is 1 KiB or 20 MiB, and an HTML page can be left to the browser once decided.
// JSON is decided here tentatively; a body that then does not parse is read as text (json-in-thread.ts).
import type { ContentKind } from '../domain/content.js';

/** The bytes the decision reads at most. */
export const SNIFF_BYTES = 8 * 1024;

export interface DeclaredType {
  /** Media type without parameters, lower case; null when none was sent. */
  mediaType: string | null;
  /** The charset parameter, lower case; null when none. */
  charset: string | null;
}

/** A Content-Type header split into its media type and charset. */
export function parseContentType(header: string | undefined): DeclaredType {
  if (!header) return { mediaType: null, charset: null };
  const [type, ...params] = header.split(';');
  const mediaType = type!.trim().toLowerCase() || null;
  let charset: string | null = null;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    charset =
      p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase() || null;
  }
  return { mediaType, charset };
}

const PDF_MAGIC = Buffer.from('%PDF-');
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** application/json, text/json and every structured-syntax "+json" type. */
export function isJsonType(mediaType: string | null): boolean {
  return mediaType === 'application/json' || mediaType === 'text/json' || !!mediaType?.endsWith('+json');
}

const isHtmlType = (mediaType: string | null) => mediaType === 'text/html' || mediaType === 'application/xhtml+xml';

/**
 * The tags that start an HTML document, after leading whitespace (WHATWG MIME Sniffing, "identifying a
 * resource with an unknown MIME type"): a tag name followed by a space or ">".
 */
const HTML_MARKERS = [
  '<!doctype html',
  '<html',
  '<head',
  '<script',
  '<iframe',
  '<h1',
  '<div',
  '<font',
  '<table',
  '<a',
  '<style',
  '<title',
  '<b',
  '<body',
  '<br',
  '<p',
  '<!--',
];

function startsLikeHtml(head: Buffer): boolean {
  const start = head
    .subarray(skipBomAndSpace(head), skipBomAndSpace(head) + 32)
    .toString('latin1')
    .toLowerCase();
  return HTML_MARKERS.some((marker) => {
    if (!start.startsWith(marker)) return false;
    if (marker === '<!--') return true;
    const next = start.charAt(marker.length);
    return next === ' ' || next === '>' || next === '\t' || next === '\n' || next === '\r';
  });
}

/** Offset of the first byte that is neither a UTF-8 byte order mark nor JSON/HTML whitespace. */
function skipBomAndSpace(head: Buffer): number {
  let i = UTF8_BOM.every((b, j) => head[j] === b) ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d)) i++;
  return i;
}

/**
 * Whether `head` reads as text in `charset` (UTF-8 when none): it decodes without error (a character cut
 * at the end of `head` is allowed) and has no NUL. A UTF-16 byte order mark is text whatever follows.
 */
export function looksLikeText(head: Buffer, charset: string | null): boolean {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return true;
  if (head.includes(0)) return false;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8', { fatal: true });
  } catch {
    decoder = new TextDecoder('utf-8', { fatal: true }); // a charset TextDecoder does not know: UTF-8
  }
  try {
    decoder.decode(head, { stream: true }); // stream: a multi-byte character cut by the window is no error
    return true;
  } catch {
    return false;
  }
}

/**
 * The kind of a response from its declared type and its first bytes (at most SNIFF_BYTES of them), in
 * this order: "%PDF-" → pdf; a JSON type, or a body starting with "{" or "[" that is not declared as
 * another text type, → json (tentative: see above); an HTML type, or HTML's opening tags in a body not
 * declared as text → html; a text/* type, or bytes that decode in the declared charset (else UTF-8)
 * with no NUL → text; anything else → binary.
 */
export function sniffKind(declared: DeclaredType, head: Buffer): ContentKind {
  const { mediaType, charset } = declared;
  const start = skipBomAndSpace(head);
  if (head.subarray(0, 1024).indexOf(PDF_MAGIC) === 0 || head.subarray(start, start + 5).equals(PDF_MAGIC))
    return 'pdf';
  const first = head[start];
  const text = looksLikeText(head, charset);
  if (isJsonType(mediaType) && first !== 0x3c /* < */ && text) return 'json';
  if (isHtmlType(mediaType)) return 'html';
  const declaredText = mediaType?.startsWith('text/') ?? false;
  if (!declaredText && startsLikeHtml(head)) return 'html';
  if ((first === 0x7b || first === 0x5b) /* { [ */ && text && (!declaredText || mediaType === 'text/plain'))
    return 'json';
  if (declaredText || text) return 'text';
  return 'binary';
}
