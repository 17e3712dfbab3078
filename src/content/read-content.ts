// What a monitor's URL serves, read for a capture. The URL is fetched from Node first (fetch-content.ts)
// and its kind decided from the answer's type and first bytes (sniff.ts):
// - html answered to a GET: the fetch stops there and the browser renders the URL as before (one extra
//   request of the headers and first bytes);
// - html answered to a POST or PUT: the browser renders the fetched HTML at the final URL;
// - json and text: read into lines in a thread (read-in-thread.ts), pictured as a plain page;
// - pdf: read by pdf-read.ts into text by page and a picture of its first pages;
// - binary: its SHA-256 and size, pictured as a card.
// A GET whose fetch fails for a reason the browser may not share (a reset, a refused connection, an
// unsupported encoding) is left to the browser, as every capture was before: the kind is then html.
// A limit of the fetch (redirects, time, a refused hop) fails the capture whatever the method.
import { createHash } from 'node:crypto';
import { devices } from 'playwright';
import type { CaptureContent } from '../domain/content.js';
import type { Filter } from '../domain/filters.js';
import type { PageBlock } from '../domain/page-facts.js';
import type { Cookie, HeadersScope, ImageSpec, PageSpec } from '../domain/render-spec.js';
import { humanBytes } from '../domain/units.js';
import type { EgressPolicy } from '../egress/policy.js';
import { renderFailed, renderTimeout, urlBlocked } from '../errors.js';
import { mainDocumentFails, mainStatusAdvice } from '../render/load/failure-rules.js';
import type { Renderer } from '../render/renderer.js';
import { pngSize } from '../diff/pixels/png-size.js';
import { bytesLine, bytesPage, lineBox, linesPage } from './content-page.js';
import { ContentFetchError, openContent, type ContentRequest } from './fetch-content.js';
import { readPdf } from './pdf-read.js';
import { readTextInThread } from './read-in-thread.js';
import { sniffKind } from './sniff.js';

/** The monitors.* settings that bound what is read. */
export interface ContentSettings {
  /** monitors.maxContentBytes: bytes of a response kept, after decompression. */
  maxContentBytes: number;
  /** monitors.pdfMaxPages: pages of a PDF whose text is read. */
  pdfMaxPages: number;
  /** monitors.pdfPicturePages: pages drawn into a PDF's picture. */
  pdfPicturePages: number;
  /** pdf.memoryMb: the PDF reader's memory bound. */
  pdfMemoryMb: number;
}

/** JSON nesting deeper than this fails the capture. */
export const MAX_JSON_DEPTH = 100;
/** Lines of JSON or text compared at most (the rest is left out, and the capture says so). */
export const MAX_CONTENT_LINES = 10_000;
/** Characters of one line kept. */
export const MAX_LINE_CHARS = 2_000;
/** Lines drawn in the picture of JSON or text. */
export const PICTURE_LINES = 200;

/** The monitor's capture options as the read needs them, secrets opened. */
export interface ContentOptions {
  method?: 'GET' | 'POST' | 'PUT';
  body?: string;
  bodyContentType?: string;
  headers?: Record<string, string>;
  headersScope?: HeadersScope;
  cookies?: Cookie[];
  httpCredentials?: { username: string; password: string };
  userAgent?: string;
  device?: string;
  viewport?: { width: number; height: number };
  deviceScaleFactor?: number;
  timeout: number;
  failOnHttpError?: boolean;
  failOnHttpStatusCodes?: number[];
}

export interface ContentInput {
  url: string;
  capture: ContentOptions;
  filters: Filter[];
}

export interface ContentDeps {
  egress: EgressPolicy;
  renderer: Renderer;
  settings: ContentSettings;
}

/** The browser renders it: the URL as always, or (`page`) the HTML a POST or PUT was answered with. */
export interface BrowserRead {
  via: 'browser';
  content: CaptureContent;
  page?: { html: string; baseUrl: string };
  status?: number;
}

/** Read here: its picture and the blocks it is compared by. */
export interface ContentRead {
  via: 'content';
  content: CaptureContent;
  image: Buffer;
  truncated: boolean;
  /** Blocks past the picture have a null box (they are compared, not drawn). */
  blocks: PageBlock[];
  status: number;
  /** Indexes of jsonPath filters that selected nothing. */
  missingFilters: number[];
}

/** Used when the monitor names no userAgent or device: says who asks. */
export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; Pagewatch monitor)';

export async function readContent(
  input: ContentInput,
  deps: ContentDeps,
  signal: AbortSignal,
): Promise<BrowserRead | ContentRead> {
  const { capture, url } = input;
  const method = capture.method ?? 'GET';
  const request: ContentRequest = {
    url,
    method,
    body: method === 'GET' ? undefined : capture.body,
    bodyContentType: capture.bodyContentType,
    headers: capture.headers,
    headersScope: capture.headersScope,
    cookies: capture.cookies,
    httpCredentials: capture.httpCredentials,
    userAgent:
      capture.userAgent ?? (capture.device ? devices[capture.device]?.userAgent : undefined) ?? DEFAULT_USER_AGENT,
  };
  let opened;
  try {
    opened = await openContent(
      deps.egress,
      request,
      { maxBytes: deps.settings.maxContentBytes, timeoutMs: capture.timeout },
      signal,
    );
  } catch (err) {
    if (!(err instanceof ContentFetchError)) throw err;
    if (err.how.blocked) throw urlBlocked(err.message);
    if (err.how.timedOut) throw renderTimeout(capture.timeout, err.message);
    if (method === 'GET' && !err.how.final)
      return { via: 'browser', content: { kind: 'html', mediaType: null, bytes: null } };
    throw renderFailed(err.message, err, true);
  }
  const { declared, status } = opened;
  const kind = sniffKind(declared, opened.head);
  if (kind === 'html' && method === 'GET') {
    opened.close(); // the browser reads the page (and judges its status) as it always has
    return { via: 'browser', content: { kind, mediaType: declared.mediaType, bytes: null }, status };
  }
  // The browser's rule for the main document (failOnHttpError, failOnHttpStatusCodes) judges this answer.
  const statusRules = capture as unknown as PageSpec;
  if (mainDocumentFails(statusRules, status)) {
    opened.close();
    throw renderFailed(`${opened.url} answered HTTP ${status}; ${mainStatusAdvice(statusRules)}`);
  }
  const { bytes, cut } = await opened.readAll();
  const base: CaptureContent = { kind, mediaType: declared.mediaType, bytes: bytes.length, ...(cut && { cut }) };
  switch (kind) {
    case 'html':
      return {
        via: 'browser',
        content: base,
        page: { html: bytes.toString('utf8'), baseUrl: opened.url },
        status,
      };
    case 'pdf':
      if (cut)
        throw renderFailed(
          `the PDF is larger than ${humanBytes(deps.settings.maxContentBytes)} (monitors.maxContentBytes) ` +
            'and cannot be read',
        );
      return readPdfContent(bytes, base, input, deps, status, signal);
    case 'json':
    case 'text': {
      const reading = await readTextInThread(
        {
          kind,
          bytes,
          charset: declared.charset,
          filters: input.filters,
          limits: {
            maxDepth: MAX_JSON_DEPTH,
            maxLines: MAX_CONTENT_LINES,
            maxLineChars: MAX_LINE_CHARS,
            pictureLines: PICTURE_LINES,
          },
        },
        signal,
      );
      // A cut JSON document does not parse and is read as text: say why.
      const lineCut =
        reading.total > reading.lines.length
          ? `only the first ${reading.lines.length.toLocaleString('en-US')} of ` +
            `${reading.total.toLocaleString('en-US')} lines are compared`
          : undefined;
      const content: CaptureContent = { ...base, kind: reading.kind, ...joinCuts(cut, lineCut) };
      const picture = await deps.renderer.renderImage(
        pictureSpec(linesPage(reading.picture, reading.lines.length - reading.picture.length), input),
        signal,
        { background: true },
      );
      const { width } = pngSize(picture.bytes);
      const scale = input.capture.deviceScaleFactor ?? 1;
      const blocks = reading.lines.map((line, i) => ({
        ...line,
        box: i < reading.picture.length ? lineBox(i, width, scale) : noBox(),
      }));
      return {
        via: 'content',
        content,
        image: picture.bytes,
        truncated: picture.truncated,
        blocks,
        status,
        missingFilters: reading.missing,
      };
    }
    case 'binary': {
      const sha256 = await digest(bytes);
      const facts = { mediaType: declared.mediaType, bytes: bytes.length, sha256, cut };
      const picture = await deps.renderer.renderImage(pictureSpec(bytesPage(facts), input), signal, {
        background: true,
      });
      const { width, height } = pngSize(picture.bytes);
      return {
        via: 'content',
        content: { ...base, sha256 },
        image: picture.bytes,
        truncated: picture.truncated,
        blocks: [{ selector: 'bytes', tag: 'bytes', text: bytesLine(facts), box: { x: 0, y: 0, width, height } }],
        status,
        missingFilters: [],
      };
    }
  }
}

async function readPdfContent(
  bytes: Buffer,
  base: CaptureContent,
  input: ContentInput,
  deps: ContentDeps,
  status: number,
  signal: AbortSignal,
): Promise<ContentRead> {
  const { settings } = deps;
  const reading = await readPdf(
    bytes,
    {
      maxPages: settings.pdfMaxPages,
      picturePages: settings.pdfPicturePages,
      timeoutMs: input.capture.timeout,
      memoryMb: settings.pdfMemoryMb,
    },
    signal,
  );
  const blocks = reading.pages.flatMap((page) =>
    page.blocks.map((block) => ({
      selector: `page ${page.page}`,
      tag: 'page',
      text: block.text,
      box: block.box ?? noBox(),
    })),
  );
  return {
    via: 'content',
    content: {
      ...base,
      pages: reading.pageCount,
      pagesRead: reading.pagesRead,
      ...(reading.cut && { cut: reading.cut }),
    },
    image: reading.picture,
    truncated: false,
    blocks,
    status,
    missingFilters: [],
  };
}

/**
 * A block that is compared but not drawn (past the picture) has no box. PageBlock says every block has
 * one, which is true of a web page; stored text and the text diff accept null (src/diff/text/compare.ts,
 * region-elements.ts leave such blocks out of regions).
 */
const noBox = () => null as unknown as PageBlock['box'];

function joinCuts(...cuts: (string | undefined)[]): { cut?: string } {
  const said = cuts.filter((c): c is string => !!c);
  return said.length ? { cut: said.join('; ') } : {};
}

/** The picture's render: the page built here, JavaScript off, the monitor's viewport and scale, all of it. */
function pictureSpec(html: string, input: ContentInput): ImageSpec {
  const { viewport, deviceScaleFactor, timeout } = input.capture;
  return {
    html,
    ...(viewport && { viewport }),
    ...(deviceScaleFactor && { deviceScaleFactor }),
    colorScheme: 'light',
    reducedMotion: 'reduce',
    javaScriptEnabled: false,
    waitUntil: 'load',
    delay: 0,
    timeout,
    headersScope: 'origin',
    scrollPage: false,
    format: 'png',
    fullPage: true,
    omitBackground: false,
    animations: 'disabled',
    caret: 'hide',
  };
}

/** SHA-256 off the event loop (WebCrypto hashes on the thread pool). */
async function digest(bytes: Buffer): Promise<string> {
  if (bytes.length < 64 * 1024) return createHash('sha256').update(bytes).digest('hex');
  return Buffer.from(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes))).toString('hex');
}
