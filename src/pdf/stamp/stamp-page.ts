// The watermark's or stamp's own page: a small HTML page that Chromium prints to a one-page PDF (the
// engine's renderStamp), so text in any script and font, CSS colours and every image format Chromium
// draws come out right, with embedded fonts. applyStamp then places that page on the document's pages.
//
// Sizing: the page is the stamp's box, not the target page's size, so one render serves pages of every
// size and rotation. An image's box is exact (its size is read from its header). A text's box cannot be
// measured without a browser, so it is a generous estimate (1 em a character, 1.25 em for wide scripts
// and emoji) and the text is aligned inside it towards the position's edges: at rotation 0 the text
// touches the edge it is placed against exactly; turned, it is centred in its box, so a turned stamp at
// an edge or corner sits up to the box's slack away from it.
//
// Everything here is attacker input. The text is HTML-escaped; colour and font family are checked against
// the patterns below (which exclude the characters that could end a CSS declaration) and escaped again
// in their attribute; the image goes in as a data URL in an <img>, where an SVG's scripts do not run and
// it loads nothing from the network.
import { imageSize } from 'image-size';
import type { PdfStamp, StampPosition } from '../../domain/pdf-spec.js';
import { type ErrorDetail, invalidRequest } from '../../errors.js';

export interface StampPageSpec {
  html: string;
  widthPt: number;
  heightPt: number;
}

/** The image types a stamp accepts, with the name image-size reports for each. */
export const STAMP_IMAGE_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/svg+xml': 'svg',
} as const;

/** A CSS colour: #rgb, #rgba, #rrggbb, #rrggbbaa, a colour name, or rgb()/rgba()/hsl()/hsla() of numbers. */
export const STAMP_COLOR_PATTERN =
  /^(?:#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|[a-zA-Z]{1,30}|(?:rgba?|hsla?)\([0-9a-z.,%/ ]{1,60}\))$/;
/** CSS font families: names (any script), quoted or not, comma-separated; nothing that ends a declaration. */
export const STAMP_FONT_FAMILY_PATTERN = /^[\p{L}\p{N} ,'"_-]{1,200}$/u;

export const STAMP_LIMITS = {
  /** Characters of text. */
  maxTextLength: 1000,
  minFontSize: 1,
  maxFontSize: 500,
  /** A page side in points (200 in): the largest PDF page size readers accept (PDF 1.7 annex C). */
  maxSidePt: 14_400,
  /** Pixels of an image stamp, so a small file cannot ask for a huge decode. */
  maxImagePixels: 40_000_000,
} as const;

/**
 * The defaults of each option, for the HTTP schemas (which fill in what the PdfStamp type requires) and
 * for the optional text options here. A watermark is a large grey diagonal behind the content, faint
 * enough not to compete with it; a stamp is a mark over the content, as solid as it was given.
 */
export const STAMP_DEFAULTS = {
  watermark: {
    opacity: 0.3,
    rotation: 45,
    position: 'center',
    offsetX: 0,
    offsetY: 0,
    fontSize: 72,
    color: '#808080',
    fontFamily: 'sans-serif',
  },
  stamp: {
    opacity: 1,
    rotation: 0,
    position: 'center',
    offsetX: 0,
    offsetY: 0,
    fontSize: 48,
    color: 'black',
    fontFamily: 'sans-serif',
  },
} as const satisfies Record<'watermark' | 'stamp', Required<Omit<PdfStamp, 'text' | 'image' | 'width' | 'pages'>>>;

const LINE_HEIGHT = 1.2;
/** Room around the text's lines, in em, for glyphs that reach past their line box. */
const TEXT_PADDING_EM = 0.5;
const PX_TO_PT = 0.75;

/** The stamp's page; `field` ("watermark" or "stamp") names the option in errors. */
export function stampPage(stamp: PdfStamp, field: 'watermark' | 'stamp' = 'stamp'): StampPageSpec {
  checkStamp(stamp, field);
  return stamp.image ? imagePage(stamp.image, stamp.width, field) : textPage(stamp, field);
}

/** Refuses what cannot be drawn, naming the option: exactly one of text and image, in range. */
export function checkStamp(stamp: PdfStamp, field: string): void {
  const details: ErrorDetail[] = [];
  const bad = (path: string, message: string) => details.push({ path: `${field}.${path}`, message });
  if (stamp.text !== undefined && stamp.image !== undefined) bad('text', 'give either text or image, not both');
  else if (stamp.text === undefined && stamp.image === undefined) bad('text', 'give either text or image');
  if (stamp.text !== undefined) {
    if (stamp.text.trim() === '') bad('text', 'must not be empty');
    else if (stamp.text.length > STAMP_LIMITS.maxTextLength)
      bad('text', `can be at most ${STAMP_LIMITS.maxTextLength} characters`);
  }
  const { fontSize, color, fontFamily } = stamp;
  if (fontSize !== undefined && !inRange(fontSize, STAMP_LIMITS.minFontSize, STAMP_LIMITS.maxFontSize))
    bad('fontSize', `must be from ${STAMP_LIMITS.minFontSize} to ${STAMP_LIMITS.maxFontSize} pt`);
  if (color !== undefined && !STAMP_COLOR_PATTERN.test(color))
    bad('color', 'must be a CSS colour such as #ff0000, red or rgb(255 0 0)');
  if (fontFamily !== undefined && !STAMP_FONT_FAMILY_PATTERN.test(fontFamily))
    bad('fontFamily', "must be font family names separated by commas, such as 'Noto Sans', serif");
  if (stamp.image && !Object.hasOwn(STAMP_IMAGE_TYPES, stamp.image.contentType))
    bad('image.contentType', `must be one of ${Object.keys(STAMP_IMAGE_TYPES).join(', ')}`);
  if (stamp.width !== undefined && !inRange(stamp.width, 1, STAMP_LIMITS.maxSidePt))
    bad('width', `must be from 1 to ${STAMP_LIMITS.maxSidePt} pt`);
  if (!inRange(stamp.opacity, 0, 1)) bad('opacity', 'must be from 0 to 1');
  if (!inRange(stamp.rotation, -360, 360)) bad('rotation', 'must be from -360 to 360 degrees');
  for (const offset of ['offsetX', 'offsetY'] as const)
    if (!inRange(stamp[offset], -STAMP_LIMITS.maxSidePt, STAMP_LIMITS.maxSidePt))
      bad(offset, `must be from -${STAMP_LIMITS.maxSidePt} to ${STAMP_LIMITS.maxSidePt} pt`);
  if (details.length > 0) throw refusal(details);
}

function textPage(stamp: PdfStamp, field: 'watermark' | 'stamp'): StampPageSpec {
  const defaults = STAMP_DEFAULTS[field];
  const text = stamp.text!.replace(/\r\n?/g, '\n');
  const fontSize = stamp.fontSize ?? defaults.fontSize;
  const lines = text.split('\n');
  const widestEm = Math.max(...lines.map(lineWidthEm));
  const widthPt = round((widestEm + TEXT_PADDING_EM) * fontSize);
  const heightPt = round((lines.length * LINE_HEIGHT + TEXT_PADDING_EM) * fontSize);
  if (Math.max(widthPt, heightPt) > STAMP_LIMITS.maxSidePt) {
    throw refusal([
      {
        path: `${field}.text`,
        message: `is too long for its fontSize: it would be ${Math.ceil(Math.max(widthPt, heightPt))} pt across, over the ${STAMP_LIMITS.maxSidePt} pt a page allows; shorten it or lower fontSize`,
      },
    ]);
  }
  const [justify, align]: [FlexEdge, FlexEdge] =
    stamp.rotation % 360 === 0 ? edges(stamp.position) : ['center', 'center'];
  const style = `color: ${stamp.color ?? defaults.color}; ` + `font-family: ${stamp.fontFamily ?? defaults.fontFamily}`;
  const body =
    `<div class="box" style="justify-content: ${justify}; align-items: ${align}; text-align: ${textAlign(justify)}">` +
    `<div style="${escapeHtml(style)}">${escapeHtml(text)}</div></div>`;
  return {
    html: pageHtml(widthPt, heightPt, `font-size: ${fontSize}pt; line-height: ${LINE_HEIGHT}; white-space: pre`, body),
    widthPt,
    heightPt,
  };
}

function imagePage(image: NonNullable<PdfStamp['image']>, width: number | undefined, field: string): StampPageSpec {
  const size = readImageSize(image, field);
  const widthPt = round(width ?? size.width * PX_TO_PT);
  const heightPt = round((widthPt * size.height) / size.width);
  if (Math.max(widthPt, heightPt) > STAMP_LIMITS.maxSidePt || heightPt < 0.01) {
    const path = `${field}.${width === undefined ? 'image' : 'width'}`;
    throw refusal([
      {
        path,
        message: `would make the image ${Math.ceil(widthPt)} × ${Math.ceil(heightPt)} pt, beyond the ${STAMP_LIMITS.maxSidePt} pt a page allows; give a width that fits`,
      },
    ]);
  }
  const src = `data:${image.contentType};base64,${image.bytes.toString('base64')}`;
  const body = `<img alt="" src="${escapeHtml(src)}" style="display: block; width: ${widthPt}pt; height: ${heightPt}pt">`;
  return { html: pageHtml(widthPt, heightPt, '', body), widthPt, heightPt };
}

/** The image's size in pixels as Chromium shows it (a JPEG's EXIF orientation applied), checked. */
function readImageSize(image: NonNullable<PdfStamp['image']>, field: string): { width: number; height: number } {
  const expected = STAMP_IMAGE_TYPES[image.contentType as keyof typeof STAMP_IMAGE_TYPES];
  let size: ReturnType<typeof imageSize> | undefined;
  try {
    size = imageSize(image.bytes);
  } catch {
    size = undefined;
  }
  const path = `${field}.image`;
  if (!size?.width || !size.height || size.type !== expected) {
    throw refusal([
      {
        path,
        message:
          size && size.type !== expected
            ? `is a ${size.type ?? 'different'} image, not ${image.contentType}; send the matching contentType`
            : `is not a readable ${image.contentType} image with a width and height; send a valid file`,
      },
    ]);
  }
  if (size.width * size.height > STAMP_LIMITS.maxImagePixels) {
    throw refusal([
      {
        path,
        message: `is ${size.width} × ${size.height} pixels, over the ${STAMP_LIMITS.maxImagePixels / 1e6} megapixels allowed; send a smaller image`,
      },
    ]);
  }
  // EXIF orientations 5-8 turn the picture a quarter, so Chromium shows it with width and height swapped.
  const turned = (size.orientation ?? 1) >= 5;
  return turned ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
}

function pageHtml(widthPt: number, heightPt: number, bodyStyle: string, body: string): string {
  return (
    '<!doctype html><html><head><meta charset="utf-8"><style>' +
    `@page { size: ${widthPt}pt ${heightPt}pt; margin: 0 } ` +
    `html, body { margin: 0; padding: 0; width: ${widthPt}pt; height: ${heightPt}pt; overflow: hidden; background: transparent } ` +
    `body { ${bodyStyle} } ` +
    '.box { display: flex; width: 100%; height: 100% }' +
    `</style></head><body>${body}</body></html>`
  );
}

type FlexEdge = 'flex-start' | 'center' | 'flex-end';

/** Where the text sits in its box: against the edges the stamp is placed at. */
function edges(position: StampPosition): [justify: FlexEdge, align: FlexEdge] {
  const justify = position.endsWith('left') ? 'flex-start' : position.endsWith('right') ? 'flex-end' : 'center';
  const align = position.startsWith('top') ? 'flex-start' : position.startsWith('bottom') ? 'flex-end' : 'center';
  return [justify, align];
}

const textAlign = (justify: FlexEdge) =>
  justify === 'flex-start' ? 'left' : justify === 'flex-end' ? 'right' : 'center';

/** Combining marks take no room of their own. */
const COMBINING = /\p{M}/u;
/** East Asian wide characters and emoji: about a full em each, or more. */
const WIDE =
  /[\p{Extended_Pictographic}\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

function lineWidthEm(line: string): number {
  let em = 0;
  for (const char of line) em += COMBINING.test(char) ? 0 : WIDE.test(char) ? 1.25 : char === '\t' ? 4 : 1;
  return em;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function refusal(details: ErrorDetail[]) {
  return invalidRequest(details.map((d) => `${d.path} ${d.message}`).join('; ') + '.', details);
}

const inRange = (n: number, min: number, max: number) => Number.isFinite(n) && n >= min && n <= max;
const round = (n: number) => Math.round(n * 100) / 100;
