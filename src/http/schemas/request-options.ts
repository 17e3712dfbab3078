// The field groups a render request and a monitor share: how the page is loaded (pageOptions, with its
// URL, header and cookie rules) and how an image is captured (imageOptions, one capture mode at most).
// The render schemas (render.ts) and the monitor schemas (monitors.ts, steps.ts) build on them.
import { devices } from 'playwright';
import { z } from 'zod';
import { hasUserinfo } from '../../domain/urls.js';
import {
  ANIMATIONS,
  CARETS,
  COLOR_SCHEMES,
  CONTRASTS,
  FORCED_COLORS,
  HEADERS_SCOPES,
  IMAGE_FORMATS,
  MEDIA_TYPES,
  REDUCED_MOTIONS,
  RESOURCE_TYPES,
  SAME_SITES,
  WAIT_UNTILS,
} from '../../domain/render-spec.js';
import type { ImageSizeLimits } from './image-size.js';
import {
  DEFAULT_MAX_DOCUMENT_CHARS,
  MAX_COOKIE_VALUE_CHARS,
  MAX_CREDENTIAL_CHARS,
  MAX_DOMAIN_CHARS,
  MAX_HEADER_NAME_CHARS,
  MAX_HEADER_VALUE_CHARS,
  MAX_LOCALE_CHARS,
  MAX_NAME_CHARS,
  MAX_SELECTOR_CHARS,
  MAX_TIME_ZONE_CHARS,
  MAX_URL_CHARS,
} from './string-caps.js';

export interface SchemaLimits extends ImageSizeLimits {
  maxTimeoutMs: number;
  /** limits.maxBodyBytes: the cap of html, css, js and the other document fields (string-caps.ts). */
  maxBodyBytes?: number;
}

/** The cap of a document or code field: as many characters as the body may have bytes. */
export const documentChars = (limits: { maxBodyBytes?: number }) => limits.maxBodyBytes ?? DEFAULT_MAX_DOCUMENT_CHARS;

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** Webhooks are told who sent them by their signature; a receiver's password has no place in the URL. */
export const WEBHOOK_NO_CREDENTIALS = 'the receiver checks the webhook-signature header instead';

export const httpUrl = (what: string, credentials = 'give them as httpCredentials') =>
  z
    .string()
    .max(MAX_URL_CHARS)
    .refine((value) => {
      // The URL parser quietly drops surrounding spaces and embedded tabs/newlines; an odd spelling is
      // refused rather than normalised into something the caller did not write.
      // eslint-disable-next-line no-control-regex
      if (value !== value.trim() || /[\u0000-\u001f\u007f]/.test(value)) return false;
      try {
        const u = new URL(value);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, `${what} must be a full web address starting with http:// or https://, such as https://example.com/`)
    // Chromium keeps credentials from a URL for its whole browser context, beyond the render (and a
    // monitor's url is shown in every answer): they go in httpCredentials, bound to the origin.
    .refine((value) => !hasUserinfo(value), `${what} ${NO_USERINFO}: ${credentials}`);

export const NO_USERINFO = 'may not hold a user name or password (user:password@host)';

export const validTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** "Strict", "Lax" or "None" in any case (browsers and Gotenberg read it so), given to Playwright as it spells them. */
const sameSite = z
  .string()
  .max(6)
  // Spelled out letter by letter rather than with the i flag, so the OpenAPI pattern says the same.
  .regex(/^(?:[Ss][Tt][Rr][Ii][Cc][Tt]|[Ll][Aa][Xx]|[Nn][Oo][Nn][Ee])$/, 'one of "Strict", "Lax" or "None" (any case)')
  .transform((value) => SAME_SITES.find((s) => s.toLowerCase() === value.toLowerCase())!)
  .describe('"Strict", "Lax" or "None", in any case');

const cookie = z
  .object({
    name: z.string().min(1).max(MAX_NAME_CHARS),
    value: z.string().max(MAX_COOKIE_VALUE_CHARS),
    domain: z.string().max(MAX_DOMAIN_CHARS).optional(),
    path: z.string().max(MAX_URL_CHARS).optional(),
    url: httpUrl('cookie url', "a cookie's url only says where the cookie goes").optional(),
    httpOnly: z.boolean().optional(),
    secure: z.boolean().optional(),
    sameSite: sameSite.optional(),
  })
  .strict();

/** RFC 9110 token names and values without CR, LF or NUL: what Chromium will send at all. */
export const headerRecord = z
  .record(
    z.string().max(MAX_HEADER_NAME_CHARS),
    z
      .string()
      .max(MAX_HEADER_VALUE_CHARS)
      .regex(/^[^\r\n\0]*$/, 'a header value cannot hold CR, LF or NUL'),
  )
  .superRefine((headers, ctx) => {
    for (const name of Object.keys(headers)) {
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: "not a valid header name (a token: letters, digits and !#$%&'*+-.^_`|~)",
        });
      }
    }
  });

/** At most this many entries in failOnHttpStatusCodes and failOnResourceHttpStatusCodes. */
export const MAX_STATUS_CODES = 100;
/** At most this many entries in ignoreResourceHttpStatusDomains. */
export const MAX_IGNORED_DOMAINS = 100;

const statusCodes = z.array(int(100, 599)).max(MAX_STATUS_CODES);

/** A host name (or IP address), optionally "*."- or "."-prefixed: no scheme, port or path. */
const domainName = z
  .string()
  .min(1)
  .max(MAX_DOMAIN_CHARS)
  .regex(
    /^(\*\.|\.)?[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*$/,
    'a domain name such as "example.com" (no scheme, port or path)',
  );

/** failOnHttpError and failOnHttpStatusCodes both decide the main document's fate: one of them at most. */
export function oneMainStatusRule(
  value: { failOnHttpError?: unknown; failOnHttpStatusCodes?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (value.failOnHttpError !== undefined && value.failOnHttpStatusCodes !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['failOnHttpStatusCodes'],
      message: 'give failOnHttpStatusCodes or failOnHttpError, not both (the list decides which statuses fail)',
    });
  }
}

export function pageOptions(limits: SchemaLimits) {
  return {
    url: httpUrl('url').optional().describe('Address of the page to render (http or https)'),
    html: z.string().max(documentChars(limits)).optional().describe('HTML to render'),
    baseUrl: httpUrl('baseUrl').optional().describe('Resolves relative links in html'),
    viewport: z
      .object({ width: int(1, 3840), height: int(1, 2160) })
      .strict()
      .optional()
      .describe("Viewport in CSS pixels; default 1280×800 (or the device's)"),
    deviceScaleFactor: z.number().min(1).max(3).optional().describe('Device pixel ratio, 1..3; default 1'),
    device: z
      .string()
      .max(MAX_NAME_CHARS)
      .refine(
        (name) => Object.hasOwn(devices, name),
        'unknown device; use a Playwright device name such as "iPhone 13"',
      )
      .optional()
      .describe('Playwright device name: sets viewport, user agent, scale and touch'),
    userAgent: z.string().min(1).max(MAX_HEADER_VALUE_CHARS).optional(),
    locale: z
      .string()
      .max(MAX_LOCALE_CHARS)
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a BCP 47 locale such as "en-US"')
      .optional(),
    timezoneId: z
      .string()
      .max(MAX_TIME_ZONE_CHARS)
      .refine(validTimeZone, 'an IANA time zone such as "Europe/Paris"')
      .optional(),
    colorScheme: z.enum(COLOR_SCHEMES).default('light'),
    reducedMotion: z.enum(REDUCED_MOTIONS).optional(),
    forcedColors: z
      .enum(FORCED_COLORS)
      .optional()
      .describe('Emulates CSS forced-colors (as a high-contrast theme does); default "none"'),
    contrast: z.enum(CONTRASTS).optional().describe('Emulates CSS prefers-contrast; default "no-preference"'),
    media: z.enum(MEDIA_TYPES).optional().describe('CSS media type; image default screen, pdf default print'),
    javaScriptEnabled: z.boolean().default(true),
    waitUntil: z.enum(WAIT_UNTILS).default('load'),
    waitForSelector: z
      .string()
      .min(1)
      .max(MAX_SELECTOR_CHARS)
      .optional()
      .describe('Wait until it is visible; 422 if it never is'),
    waitForFunction: z
      .string()
      .min(1)
      .max(documentChars(limits))
      .optional()
      .describe('JS expression waited until truthy'),
    delay: int(0, 10_000).default(0).describe('Extra wait after readiness, ms'),
    timeout: int(1000, limits.maxTimeoutMs).default(30_000).describe('Whole render budget, ms'),
    headers: headerRecord
      .optional()
      .describe(
        'Extra HTTP headers, sent to the target\'s origin only (url, or baseUrl for html) unless headersScope is "all"',
      ),
    headersScope: z
      .enum(HEADERS_SCOPES)
      .default('origin')
      .describe(
        'Where headers go: "origin" (default) only to requests to the target\'s origin, never across a ' +
          'redirect to another; "all" to every request the page makes',
      ),
    cookies: z.array(cookie).max(100).optional(),
    httpCredentials: z
      .object({ username: z.string().max(MAX_CREDENTIAL_CHARS), password: z.string().max(MAX_CREDENTIAL_CHARS) })
      .strict()
      .optional()
      .describe("Basic/Digest credentials, given only to the target's origin (url, or baseUrl for html)"),
    css: z.string().max(documentChars(limits)).optional().describe('Style added after load, before capture'),
    js: z.string().max(documentChars(limits)).optional().describe('Script added after load, before capture'),
    hideSelectors: z
      .array(z.string().min(1).max(MAX_SELECTOR_CHARS))
      .max(100)
      .optional()
      .describe('CSS selectors set to visibility:hidden'),
    blockResources: z.array(z.enum(RESOURCE_TYPES)).optional().describe('Resource types not loaded'),
    scrollPage: z.boolean().default(false).describe('Scroll to the bottom and back to trigger lazy loading'),
    failOnHttpError: z.boolean().optional().describe('Main document status >= 400 → 422; default true for url'),
    failOnHttpStatusCodes: statusCodes
      .optional()
      .describe(
        'Main-document statuses that fail the render (422), replacing failOnHttpError (give one of the two); ' +
          'an entry X99 means X00–X99 (499: every 4xx); [] never fails. Without either: [499, 599] for url',
      ),
    failOnResourceHttpStatusCodes: statusCodes
      .optional()
      .describe(
        'Sub-resource statuses (images, stylesheets, scripts, fonts, frames, fetches...) that fail the render ' +
          '(422 listing them); X99 as in failOnHttpStatusCodes. Default: none',
      ),
    ignoreResourceHttpStatusDomains: z
      .array(domainName)
      .max(MAX_IGNORED_DOMAINS)
      .optional()
      .describe(
        'Domains whose resources failOnResourceHttpStatusCodes does not judge: the domain and its subdomains ' +
          '("example.com" also covers "cdn.example.com"; a leading "*." or "." is the same)',
      ),
    failOnResourceLoadingFailed: z
      .boolean()
      .optional()
      .describe(
        'A sub-resource that failed without an answer (host not found, connection refused or reset, TLS, ' +
          'timed out) fails the render (422 listing them); one the egress policy refused does not. Default false',
      ),
    failOnConsoleExceptions: z
      .boolean()
      .optional()
      .describe('An exception no script of the page caught fails the render (422 with its message). Default false'),
    failOnMissingGlyphs: z
      .boolean()
      .optional()
      .describe(
        'Characters no font could draw (boxes) → 422 render_failed naming them and their elements (details); ' +
          'default false: rendered anyway and listed in diagnostics.missingGlyphs',
      ),
    filename: z.string().min(1).max(MAX_NAME_CHARS).optional().describe('Used in Content-Disposition'),
    response: z
      .enum(['binary', 'json'])
      .default('binary')
      .describe('Synchronous answer: the bytes, or JSON with base64 data'),
    ...asyncOptions(),
  };
}

/**
 * "1-3, 5": ranges and pages separated by commas; with `openEnd`, "7-" runs to the last page (the PDF
 * engine's ranges; Chromium's pageRanges has no such form). Checked range by range: one regex over the
 * whole list backtracked through every range when the end did not match (over 300 ms on 1 MiB in the regex
 * audit).
 */
export function isPageRanges(value: string, openEnd = false): boolean {
  // The end's spaces and digits are one optional group: "\s*\d*\s*" would put two space runs side by side.
  const range = openEnd ? /^\s*\d+(?:\s*-(?:\s*\d+)?)?\s*$/ : /^\s*\d+(?:\s*-\s*\d+)?\s*$/;
  return value.split(',').every((part) => range.test(part));
}

/** How a request becomes an async job: shared by the renders and the PDF tools. */
export function asyncOptions() {
  return {
    async: z
      .boolean()
      .default(false)
      .describe('Answer 202 with a job at once; the result is fetched later (API key required)'),
    webhookUrl: httpUrl('webhookUrl', WEBHOOK_NO_CREDENTIALS)
      .optional()
      .describe("Told of the async job's end (job.succeeded / job.failed); needs async"),
  };
}

export function imageOptions() {
  return {
    format: z.enum(IMAGE_FORMATS).default('png'),
    quality: int(1, 100).optional().describe('jpeg/webp quality; default 80'),
    fullPage: z.boolean().default(false).describe('The whole page; cut to the size caps (X-Truncated)'),
    selector: z
      .string()
      .min(1)
      .max(MAX_SELECTOR_CHARS)
      .optional()
      .describe('Capture one element; cut to the size caps (X-Truncated)'),
    clip: z
      .object({
        x: z.number().min(0),
        y: z.number().min(0),
        width: z.number().positive(),
        height: z.number().positive(),
      })
      .strict()
      .optional()
      .describe(
        'Region in CSS px; each side at most limits.maxFullPageHeight, and width × height × scale² at most ' +
          'limits.maxImagePixels',
      ),
    omitBackground: z.boolean().default(false).describe('Transparent background (png)'),
    animations: z.enum(ANIMATIONS).default('disabled'),
    caret: z.enum(CARETS).default('hide'),
  };
}

/** fullPage, selector and clip each choose what is captured: one at most. */
export function oneCaptureMode(
  value: { fullPage?: unknown; selector?: unknown; clip?: unknown },
  ctx: z.RefinementCtx,
): void {
  const modes = [
    value.fullPage === true && 'fullPage',
    value.selector !== undefined && 'selector',
    value.clip !== undefined && 'clip',
  ].filter(Boolean);
  if (modes.length > 1) {
    ctx.addIssue({ code: 'custom', path: [String(modes[1])], message: `${modes.join(' and ')} cannot be combined` });
  }
}
