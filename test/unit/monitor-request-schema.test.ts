// A monitor's request (capture.method, body, bodyContentType) and its stored url as the schema gives
// them (src/http/schemas/monitors.ts): a body only with POST or PUT, the body's length cap at its edge,
// and url / webhookUrl stored in their WHATWG serialization (a raw `<script>` is stored percent-encoded).
import { describe, expect, it } from 'vitest';
import { monitorSchema } from '../../src/http/schemas/monitors.js';
import { MAX_REQUEST_BODY_CHARS } from '../../src/http/schemas/string-caps.js';
import { refusalDetails } from '../helpers/refusal.js';

const schema = monitorSchema({
  maxFullPageHeight: 16_384,
  maxImagePixels: 50_000_000,
  maxTimeoutMs: 120_000,
  maxRetention: 1000,
  minIntervalSeconds: 1,
});
const BASE = { url: 'https://example.com/', schedule: '0 0 1 1 *' };

const parse = (body: unknown) => {
  const result = schema.safeParse(body);
  if (!result.success) throw new Error(JSON.stringify(result.error.issues));
  return result.data;
};

describe('capture.method and capture.body', () => {
  it('a body with POST or PUT is kept, with its content type', () => {
    for (const method of ['POST', 'PUT'] as const) {
      const out = parse({ ...BASE, capture: { method, body: '{"q":1}', bodyContentType: 'application/json' } });
      expect(out.capture).toMatchObject({ method, body: '{"q":1}', bodyContentType: 'application/json' });
    }
  });

  it('a body with GET, or with no method (GET), is 400 at capture.body', () => {
    for (const capture of [{ body: 'x' }, { method: 'GET', body: 'x' }, { method: 'GET', body: '' }]) {
      const details = refusalDetails(schema, { ...BASE, capture });
      expect(details.map((d) => d.path)).toEqual(['capture.body']);
      expect(details[0]!.message).toContain('POST or PUT');
    }
  });

  it('a method other than GET, POST and PUT is 400 at capture.method', () => {
    expect(refusalDetails(schema, { ...BASE, capture: { method: 'DELETE' } }).map((d) => d.path)).toEqual([
      'capture.method',
    ]);
  });

  it(`the body may have ${MAX_REQUEST_BODY_CHARS} characters, not one more`, () => {
    const at = 'a'.repeat(MAX_REQUEST_BODY_CHARS);
    expect(parse({ ...BASE, capture: { method: 'POST', body: at } }).capture.body).toBe(at);
    const over = refusalDetails(schema, { ...BASE, capture: { method: 'POST', body: `${at}a` } });
    expect(over.map((d) => d.path)).toEqual(['capture.body']);
  });
});

describe('url and webhookUrl are stored as the URL parser serializes them', () => {
  it('a raw <script> in the url is stored percent-encoded', () => {
    const out = parse({ ...BASE, url: 'https://example.com/a<script>alert(1)</script>?q=<b>"x"' });
    expect(out.url).toBe('https://example.com/a%3Cscript%3Ealert(1)%3C/script%3E?q=%3Cb%3E%22x%22');
    expect(out.url).not.toContain('<');
    expect(out.name).toBeUndefined(); // the service names it by this stored url
  });

  it('host case, default port and a missing path are normalised', () => {
    expect(parse({ ...BASE, url: 'HTTPS://Example.COM:443' }).url).toBe('https://example.com/');
    expect(parse({ ...BASE, url: 'http://example.com/a b' }).url).toBe('http://example.com/a%20b');
  });

  it('so is webhookUrl', () => {
    const out = parse({ ...BASE, webhookUrl: 'https://Hooks.example.com/in<x>' });
    expect(out.webhookUrl).toBe('https://hooks.example.com/in%3Cx%3E');
  });

  it('an already serialized url is kept as given', () => {
    const url = 'https://example.com/path/%3Cx%3E?a=1&b=%20#frag';
    expect(parse({ ...BASE, url }).url).toBe(url);
  });
});
