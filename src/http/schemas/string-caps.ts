// The longest text each kind of request field takes, in characters (UTF-16 code units, as zod counts).
// Every string field of a request schema has one, so no field can carry a megabyte into a regex, a
// parser or the store (test/unit/string-caps.test.ts walks the schemas and fails on a string without a
// maximum). The table is in docs/rendering.md ("Field length caps"); an over-long value answers 400
// with "<field> can be at most N characters long".

/** url, baseUrl, webhookUrl, a cookie's url and path, a goto step's address. */
export const MAX_URL_CHARS = 8192;
/** Any CSS or Playwright selector: waitForSelector, selector, hideSelectors, textSelector, steps, rules. */
export const MAX_SELECTOR_CHARS = 1000;
/** Names: a monitor's name, filename, device, a cookie's name. */
export const MAX_NAME_CHARS = 200;
/** A header's name. */
export const MAX_HEADER_NAME_CHARS = 256;
/** A header's value, and userAgent (sent as one). */
export const MAX_HEADER_VALUE_CHARS = 8192;
/** A cookie's value: browsers keep at most 4096 bytes of name and value. */
export const MAX_COOKIE_VALUE_CHARS = 4096;
/** A cookie's domain: a DNS name is at most 253 characters. */
export const MAX_DOMAIN_CHARS = 253;
/** httpCredentials username and password. */
export const MAX_CREDENTIAL_CHARS = 1024;
/** A BCP 47 locale; RFC 5646 asks for at least 35, so twice that leaves room for extensions. */
export const MAX_LOCALE_CHARS = 70;
/** An IANA time zone name (the longest is 32). */
export const MAX_TIME_ZONE_CHARS = 64;
/** A cron expression. */
export const MAX_CRON_CHARS = 200;
/** A CSS length of the PDF's paper or margins ("210mm"): a number and a unit. */
export const MAX_CSS_LENGTH_CHARS = 32;
/** PDF pageRanges ("1-3,5"). */
export const MAX_PAGE_RANGES_CHARS = 1000;
/** PDF metadata: title, author, subject, keywords. */
export const MAX_METADATA_CHARS = 4096;
/** A step's value (fill text, key, option, wait, goto address). */
export const MAX_STEP_VALUE_CHARS = 10_000;
/** textContains and textNotContains of a notifyWhen rule. */
export const MAX_SEARCH_TEXT_CHARS = 1000;
/** One diff.ignoreText pattern. */
export const MAX_PATTERN_CHARS = 500;
/** A list query's cursor and ids. */
export const MAX_QUERY_TOKEN_CHARS = 512;
/**
 * Documents and code: html, css, js, waitForFunction, headerTemplate, footerTemplate. Their real bound is
 * the request body (limits.maxBodyBytes, 8 MiB by default): a JSON string holds at most as many characters
 * as the body has bytes, so this cap, set from that limit, never refuses what the body limit lets in; it
 * only states it. Schemas built without the limit (tests) use the default.
 */
export const DEFAULT_MAX_DOCUMENT_CHARS = 8 * 1024 * 1024;
/** A media type ("application/xml"): RFC 6838 allows 127 characters each side of the slash. */
export const MAX_CONTENT_TYPE_CHARS = 255;
/** A PDF password: AES-256 (PDF 2.0) uses at most 127 bytes of it. */
export const MAX_PDF_PASSWORD_CHARS = 127;
/** A watermark's or stamp's text, a colour, a font family. */
export const MAX_STAMP_TEXT_CHARS = 1000;
export const MAX_COLOR_CHARS = 64;
/** A monitor's request body (capture.body: an API query, a form). */
export const MAX_REQUEST_BODY_CHARS = 65_536;
/** A media type such as "application/json; charset=utf-8". */
export const MAX_MEDIA_TYPE_CHARS = 256;
/** An XPath or JSONPath expression of diff.filters. */
export const MAX_PATH_EXPRESSION_CHARS = 1000;
