// Every string field of a request schema has a maximum length (src/http/schemas/string-caps.ts), and a
// value one character over it answers 400 with a detail naming the field and the cap.
import { PDF_TOOLS } from '../../src/jobs/pdf-work.js';
import { pdfToolSchema } from '../../src/http/schemas/pdf-tools.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { toJsonSchema } from '../../src/http/openapi/operations.js';
import { deliveryListQuery, jobListQuery, pagingQuery } from '../../src/http/schemas/lists.js';
import { monitorSchema } from '../../src/http/schemas/monitors.js';
import { imageRequestSchema, pdfRequestSchema } from '../../src/http/schemas/render.js';
import {
  DEFAULT_MAX_DOCUMENT_CHARS,
  MAX_COOKIE_VALUE_CHARS,
  MAX_CREDENTIAL_CHARS,
  MAX_CRON_CHARS,
  MAX_CSS_LENGTH_CHARS,
  MAX_HEADER_NAME_CHARS,
  MAX_HEADER_VALUE_CHARS,
  MAX_LOCALE_CHARS,
  MAX_METADATA_CHARS,
  MAX_NAME_CHARS,
  MAX_PAGE_RANGES_CHARS,
  MAX_PATTERN_CHARS,
  MAX_QUERY_TOKEN_CHARS,
  MAX_SEARCH_TEXT_CHARS,
  MAX_SELECTOR_CHARS,
  MAX_STEP_VALUE_CHARS,
  MAX_TIME_ZONE_CHARS,
  MAX_URL_CHARS,
} from '../../src/http/schemas/string-caps.js';
import { refusalDetails } from '../helpers/refusal.js';

const limits = { maxFullPageHeight: 16_384, maxImagePixels: 50_000_000, maxTimeoutMs: 120_000 };
const image = imageRequestSchema(limits);
const pdf = pdfRequestSchema(limits);
const monitor = monitorSchema({ ...limits, maxRetention: 1000, minIntervalSeconds: 60 });

type Json = { [key: string]: unknown };

/** Paths of the `type: "string"` nodes without maxLength (an enum or const is bounded by its values). */
function unboundedStrings(node: unknown, path: string, out: string[] = []): string[] {
  if (Array.isArray(node)) {
    node.forEach((n, i) => unboundedStrings(n, `${path}[${i}]`, out));
    return out;
  }
  if (node === null || typeof node !== 'object') return out;
  const n = node as Json;
  const isString = n.type === 'string' || (Array.isArray(n.type) && n.type.includes('string'));
  if (isString && n.maxLength === undefined && n.enum === undefined && n.const === undefined)
    out.push(path || '(root)');
  for (const [key, value] of Object.entries(n)) unboundedStrings(value, `${path}/${key}`, out);
  return out;
}

describe('every string field has a maximum length', () => {
  const schemas: [string, z.ZodType][] = [
    ['image request', image],
    ['pdf request', pdf],
    ['monitor create / patch (a PATCH is merged and checked by the same schema)', monitor],
    ['paging query', pagingQuery],
    ['job list query', jobListQuery],
    ['delivery list query', deliveryListQuery],
    ...PDF_TOOLS.map((tool): [string, z.ZodType] => [`pdf tool ${tool}`, pdfToolSchema(tool, { pdfMaxFiles: 50 })]),
  ];
  it.each(schemas)('%s', (_name, schema) => {
    const json = toJsonSchema(schema);
    expect(JSON.stringify(json)).toContain('"maxLength"'); // the walk sees the fields at all
    expect(unboundedStrings(json, '')).toEqual([]);
  });

  it('header names are capped too (the record keys)', () => {
    const headers = (toJsonSchema(image).properties as Json).headers as Json;
    expect(headers.propertyNames).toMatchObject({ type: 'string', maxLength: MAX_HEADER_NAME_CHARS });
  });

  it('the document fields follow limits.maxBodyBytes', () => {
    const big = toJsonSchema(pdfRequestSchema({ ...limits, maxBodyBytes: 32 * 1024 * 1024 })).properties as Json;
    expect(big.html).toMatchObject({ maxLength: 32 * 1024 * 1024 });
    expect((toJsonSchema(pdf).properties as Json).html).toMatchObject({ maxLength: DEFAULT_MAX_DOCUMENT_CHARS });
  });
});

const url = (n: number) => `https://example.com/${'a'.repeat(n - 20)}`;
const text = (n: number) => 'a'.repeat(n);
const selector = (n: number) => `#${'a'.repeat(n - 1)}`;
const set = (path: string, value: unknown): Json => {
  const keys = path.split('.');
  const out: Json = {};
  let at = out;
  keys.slice(0, -1).forEach((k) => (at = at[k] = {}) as Json);
  at[keys.at(-1)!] = value;
  return out;
};
const merge = (a: Json, b: Json): Json => {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && out[k] ? merge(out[k] as Json, v as Json) : v;
  }
  return out;
};

interface Case {
  field: string;
  schema: z.ZodType;
  base: Json;
  cap: number;
  body: (n: number) => Json;
  /** The path of the detail, when it is not the field itself. */
  path?: string;
}
const HTML = { html: '<p>x</p>' };
const MONITOR = { url: 'https://example.com/', schedule: '*/5 * * * *' };
const field = (schema: z.ZodType, base: Json, name: string, cap: number, value: (n: number) => unknown): Case => ({
  field: name,
  schema,
  base,
  cap,
  body: (n) => set(name, value(n)),
});

const CASES: Case[] = [
  field(image, {}, 'url', MAX_URL_CHARS, url),
  field(image, HTML, 'baseUrl', MAX_URL_CHARS, url),
  field(image, { ...HTML, async: true }, 'webhookUrl', MAX_URL_CHARS, url),
  field(image, {}, 'html', DEFAULT_MAX_DOCUMENT_CHARS, text),
  field(image, HTML, 'css', DEFAULT_MAX_DOCUMENT_CHARS, text),
  field(image, HTML, 'waitForSelector', MAX_SELECTOR_CHARS, selector),
  field(image, HTML, 'selector', MAX_SELECTOR_CHARS, selector),
  field(image, HTML, 'filename', MAX_NAME_CHARS, text),
  field(image, HTML, 'userAgent', MAX_HEADER_VALUE_CHARS, text),
  field(image, HTML, 'locale', MAX_LOCALE_CHARS, (n) => `en${'-abcdefgh'.repeat(20)}`.slice(0, n)),
  field(image, HTML, 'timezoneId', MAX_TIME_ZONE_CHARS, text),
  { ...field(image, HTML, 'hideSelectors', MAX_SELECTOR_CHARS, (n) => [selector(n)]), path: 'hideSelectors.0' },
  { ...field(image, HTML, 'headers', MAX_HEADER_VALUE_CHARS, (n) => ({ 'X-A': text(n) })), path: 'headers.X-A' },
  {
    ...field(
      image,
      { html: '<p>x</p>', baseUrl: 'https://example.com/' },
      'httpCredentials',
      MAX_CREDENTIAL_CHARS,
      (n) => ({
        username: text(n),
        password: 'p',
      }),
    ),
    path: 'httpCredentials.username',
  },
  {
    ...field(image, { url: 'https://example.com/' }, 'cookies', MAX_COOKIE_VALUE_CHARS, (n) => [
      { name: 'a', value: text(n) },
    ]),
    path: 'cookies.0.value',
  },
  field(pdf, HTML, 'margin.top', MAX_CSS_LENGTH_CHARS, (n) => `1${' '.repeat(n - 3)}mm`),
  field(pdf, { ...HTML, height: '1in' }, 'width', MAX_CSS_LENGTH_CHARS, (n) => `${'1'.repeat(n - 2)}px`),
  field(pdf, HTML, 'pageRanges', MAX_PAGE_RANGES_CHARS, (n) => `1${',2'.repeat((n - 1) / 2)}${n % 2 ? '' : ' '}`),
  field(pdf, HTML, 'headerTemplate', DEFAULT_MAX_DOCUMENT_CHARS, text),
  field(pdf, HTML, 'metadata.title', MAX_METADATA_CHARS, text),
  field(monitor, MONITOR, 'name', MAX_NAME_CHARS, text),
  field(monitor, MONITOR, 'schedule', MAX_CRON_CHARS, (n) => `${'0 * * * *'.padEnd(n, ' ')}`),
  field(monitor, MONITOR, 'timezone', MAX_TIME_ZONE_CHARS, text),
  field(monitor, MONITOR, 'diff.textSelector', MAX_SELECTOR_CHARS, selector),
  { ...field(monitor, MONITOR, 'diff.ignoreText', MAX_PATTERN_CHARS, (n) => [text(n)]), path: 'diff.ignoreText.0' },
  {
    ...field(monitor, MONITOR, 'diff.ignoreSelectors', MAX_SELECTOR_CHARS, (n) => [selector(n)]),
    path: 'diff.ignoreSelectors.0',
  },
  {
    ...field(monitor, MONITOR, 'capture.steps', MAX_STEP_VALUE_CHARS, (n) => [
      { action: 'fill', selector: '#q', value: text(n) },
    ]),
    path: 'capture.steps.0.value',
  },
  {
    ...field(monitor, MONITOR, 'notifyWhen', MAX_SEARCH_TEXT_CHARS, (n) => [{ selector: '#p', textContains: text(n) }]),
    path: 'notifyWhen.0.textContains',
  },
  field(pagingQuery, {}, 'cursor', MAX_QUERY_TOKEN_CHARS, text),
];

const lengthMessage = (path: string, cap: number): string =>
  `${path} can be at most ${cap.toLocaleString('en')} characters long: shorten it.`;

/** The details of a parse, [] when it is accepted. */
function detailsOf(schema: z.ZodType, body: unknown): { path: string; message: string }[] {
  return schema.safeParse(body).success ? [] : refusalDetails(schema, body);
}

describe('each cap: at the edge no length problem, one character over refused with the cap named', () => {
  it.each(CASES.map((c) => [c.path ?? c.field, c] as const))('%s', (_name, c) => {
    const path = c.path ?? c.field;
    // Some values at a cap cannot be valid otherwise (no time zone name is 64 characters): the edge
    // checks that the length alone is not refused.
    const atEdge = detailsOf(c.schema, merge(c.base, c.body(c.cap)));
    expect(atEdge.filter((d) => d.path === path && /characters long/.test(d.message))).toEqual([]);

    const over = merge(c.base, c.body(c.cap + 1));
    const details = refusalDetails(c.schema, over);
    expect(details.filter((d) => d.path === path).map((d) => d.message)).toContain(lengthMessage(path, c.cap));
  });

  it('accepts the realistic values at their edge', () => {
    for (const c of CASES.filter((c) =>
      ['url', 'css', 'waitForSelector', 'margin.top', 'pageRanges'].includes(c.field),
    ))
      expect(detailsOf(c.schema, merge(c.base, c.body(c.cap))), c.field).toEqual([]);
  });

  it('says the cap in the message, even for the ReDoS input of the CSS length', () => {
    const details = refusalDetails(pdf, { ...HTML, margin: { top: `1${' '.repeat(160_000)}x` } });
    expect(details.map((d) => d.message)).toContain(lengthMessage('margin.top', MAX_CSS_LENGTH_CHARS));
  });
});
