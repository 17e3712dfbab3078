// What the renderer is asked to render: a page and how to capture it. These are the domain's own
// types; the HTTP schemas (src/http/schemas/render.ts) validate the wire format and produce them, and a
// monitor's capture or a stored job builds them too. How an answer is sent (`response`, `async`,
// `webhookUrl`, `filename`) is the HTTP layer's business and is not here.

export const RESOURCE_TYPES = ['image', 'media', 'font', 'stylesheet', 'script', 'xhr', 'fetch', 'websocket'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const PAPER_FORMATS = ['A4', 'Letter', 'Legal', 'Tabloid', 'A3', 'A5'] as const;
export type PaperFormat = (typeof PAPER_FORMATS)[number];

export const IMAGE_FORMATS = ['png', 'jpeg', 'jpg', 'webp'] as const;

/** The choices of the page options, each named once: the HTTP schemas take their values from here. */
export const SAME_SITES = ['Strict', 'Lax', 'None'] as const;
export const COLOR_SCHEMES = ['light', 'dark'] as const;
export const REDUCED_MOTIONS = ['reduce', 'no-preference'] as const;
/** CSS `forced-colors` and `prefers-contrast`, as Playwright's page.emulateMedia names them. */
export const FORCED_COLORS = ['active', 'none'] as const;
export const CONTRASTS = ['more', 'no-preference'] as const;
export const MEDIA_TYPES = ['screen', 'print'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const WAIT_UNTILS = ['load', 'domcontentloaded', 'networkidle'] as const;
export const HEADERS_SCOPES = ['origin', 'all'] as const;
export type HeadersScope = (typeof HEADERS_SCOPES)[number];
export const ANIMATIONS = ['disabled', 'allow'] as const;
export const CARETS = ['hide', 'initial'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export interface Size {
  width: number;
  height: number;
}

export interface Cookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  url?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: (typeof SAME_SITES)[number];
}

/**
 * A file of an upload (multipart/form-data): served to the browser, for its render only, at `path` under
 * an origin that exists only for that render. `path` is relative, normalised ("css/site.css"), unique.
 */
export interface UploadedFile {
  path: string;
  contentType: string;
  bytes: Buffer;
}

/** The page: where it comes from, how the browser is set up for it, and when it is ready. */
export interface PageSpec {
  /** Exactly one of url and html. */
  url?: string;
  html?: string;
  /**
   * An upload: index.html (also in `html`) and its assets. The document is index.html at the upload's
   * own origin, and relative URLs resolve to these files.
   */
  files?: UploadedFile[];
  /** Resolves relative links in html. */
  baseUrl?: string;
  viewport?: Size;
  deviceScaleFactor?: number;
  /** A Playwright device name. */
  device?: string;
  userAgent?: string;
  locale?: string;
  timezoneId?: string;
  colorScheme: (typeof COLOR_SCHEMES)[number];
  reducedMotion?: (typeof REDUCED_MOTIONS)[number];
  /** Undefined: "none". */
  forcedColors?: (typeof FORCED_COLORS)[number];
  /** Undefined: "no-preference". */
  contrast?: (typeof CONTRASTS)[number];
  media?: MediaType;
  javaScriptEnabled: boolean;
  waitUntil: (typeof WAIT_UNTILS)[number];
  waitForSelector?: string;
  waitForFunction?: string;
  /** Extra wait after readiness, ms. */
  delay: number;
  /** The whole render's budget, ms. */
  timeout: number;
  headers?: Record<string, string>;
  headersScope: HeadersScope;
  cookies?: Cookie[];
  httpCredentials?: { username: string; password: string };
  css?: string;
  js?: string;
  hideSelectors?: string[];
  blockResources?: ResourceType[];
  scrollPage: boolean;
  /** Undefined: true for url. */
  failOnHttpError?: boolean;
  /**
   * Main-document statuses that fail the render (an X99 entry, such as 499, means X00–X99). Given, it
   * decides instead of failOnHttpError (the schema refuses both together).
   */
  failOnHttpStatusCodes?: number[];
  /** Sub-resource statuses that fail the render (X99 as above). */
  failOnResourceHttpStatusCodes?: number[];
  /** Domains (and their subdomains) whose resources' statuses are not judged by failOnResourceHttpStatusCodes. */
  ignoreResourceHttpStatusDomains?: string[];
  /** A sub-resource that failed without an answer (not found, refused, reset...) fails the render. */
  failOnResourceLoadingFailed?: boolean;
  /** An exception no script of the page caught fails the render. */
  failOnConsoleExceptions?: boolean;
  /** Characters drawn with no real glyph fail the render (422) instead of being only reported. */
  failOnMissingGlyphs?: boolean;
}

/** A region in CSS pixels of the document. */
export interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ImageOptions {
  format: ImageFormat;
  quality?: number;
  fullPage: boolean;
  selector?: string;
  clip?: Clip;
  omitBackground: boolean;
  animations: (typeof ANIMATIONS)[number];
  caret: (typeof CARETS)[number];
}

/** A length in CSS units ("10mm", "1in", "96px") or a number of pixels. */
export type CssLength = string | number;

export interface PdfOptions {
  format?: PaperFormat;
  width?: CssLength;
  height?: CssLength;
  landscape: boolean;
  margin?: { top?: CssLength; right?: CssLength; bottom?: CssLength; left?: CssLength };
  scale: number;
  printBackground: boolean;
  preferCSSPageSize: boolean;
  pageRanges?: string;
  headerTemplate?: string;
  footerTemplate?: string;
  tagged: boolean;
  outline: boolean;
  metadata?: { title?: string; author?: string; subject?: string; keywords?: string };
  /**
   * One page as tall as the content (its width from format or width); not with height, pageRanges or
   * preferCSSPageSize. Undefined: false (jobs stored before it).
   */
  singlePage?: boolean;
  /** The page's default background transparent instead of white (needs printBackground). Undefined: false. */
  omitBackground?: boolean;
}

export type ImageSpec = PageSpec & ImageOptions;
export type PdfSpec = PageSpec & PdfOptions;
export type RenderSpec = ImageSpec | PdfSpec;
