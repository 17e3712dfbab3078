// Page options that close gaps found by Gotenberg's scenarios (issue #25 item 7): waitForFunction with a
// promise, forcedColors and contrast emulation, and a cookie's sameSite in any case. Each is proven by the
// rendered output (PDF text, decoded pixels) or by what the fixture server received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng, type Rgba } from '../helpers/png.js';

let svc: TestService;
let fixture: FixtureServer;
beforeAll(async () => {
  [svc, fixture] = await Promise.all([startTestService(), startFixtureServer()]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), fixture?.close()]);
});

const doc = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

async function pdfText(body: Record<string, unknown>): Promise<string> {
  const res = await svc.post('/api/pdf', body);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return (await parsePdf(await bytesOf(res))).text;
}

async function refusal(path: string, body: Record<string, unknown>) {
  const res = await svc.post(path, body);
  return { status: res.status, error: await errorOf(res) };
}

describe('waitForFunction with a promise', () => {
  const page = doc('<p id="s">STATE-BEFORE</p>');

  it('waits for a promise to settle truthy (~300 ms): the capture shows the state after it', async () => {
    const waitForFunction =
      'new Promise((resolve) => setTimeout(() => { document.getElementById("s").textContent = "STATE-AFTER"; resolve(true); }, 300))';
    const started = Date.now();
    const text = await pdfText({ html: page, waitForFunction });
    expect(text).toContain('STATE-AFTER');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('a promise that settles falsy is not ready: the expression is evaluated again until one settles truthy', async () => {
    // Each evaluation counts itself and settles (after 50 ms) to whether it is the third.
    const waitForFunction =
      '(window.__n = (window.__n || 0) + 1, new Promise((resolve) => setTimeout(() => { ' +
      'document.getElementById("s").textContent = "EVALUATED-" + window.__n; resolve(window.__n >= 3); }, 50)))';
    expect(await pdfText({ html: page, waitForFunction })).toContain('EVALUATED-3');
  });

  it('a function returning a promise is called and its promise awaited', async () => {
    const waitForFunction =
      '() => new Promise((resolve) => setTimeout(() => { document.getElementById("s").textContent = "CALLED"; resolve("yes"); }, 100))';
    expect(await pdfText({ html: page, waitForFunction })).toContain('CALLED');
  });

  it('a plain expression still polls until truthy', async () => {
    const html = doc('<p id="s">PLAIN</p><script>setTimeout(() => { window.__ready = true; }, 200)</script>');
    expect(await pdfText({ html, waitForFunction: 'window.__ready === true' })).toContain('PLAIN');
  });

  it('a promise that rejects is 422 naming the error', async () => {
    const { status, error } = await refusal('/api/pdf', {
      html: page,
      waitForFunction: 'new Promise((_, reject) => setTimeout(() => reject(new Error("STOCK-FEED-DOWN")), 100))',
    });
    expect(`${status} ${error.code}`).toBe('422 render_failed');
    expect(error.message).toMatch(/waitForFunction failed: .*STOCK-FEED-DOWN/);
  });

  it('a promise that never settles is 422 "never became truthy" within the timeout', async () => {
    const started = Date.now();
    const { status, error } = await refusal('/api/pdf', {
      html: page,
      waitForFunction: 'new Promise(() => {})',
      timeout: 2000,
    });
    expect(`${status} ${error.code}`).toBe('422 render_failed');
    expect(error.message).toMatch(/never became truthy/);
    expect(Date.now() - started).toBeLessThan(2000 + 4000);
  });
});

describe('forcedColors and contrast', () => {
  // forced-color-adjust: none keeps the box's own colour in forced-colors mode, so only the rule tells.
  const page = doc(
    '<div id="b"></div>',
    '<style>html,body{margin:0;background:#fff} #b{width:100px;height:100px;forced-color-adjust:none;background:rgb(255,0,0)}' +
      '@media (forced-colors: active){#b{background:rgb(0,0,255)}}' +
      '@media (prefers-contrast: more){#b{background:rgb(0,255,0)}}</style>',
  );

  async function boxColour(extra: Record<string, unknown>): Promise<Rgba> {
    const res = await svc.post('/api/image', { html: page, viewport: { width: 200, height: 200 }, ...extra });
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
    return decodePng(await bytesOf(res)).pixel(50, 50);
  }

  const RED = { r: 255, g: 0, b: 0 };
  const BLUE = { r: 0, g: 0, b: 255 };
  const GREEN = { r: 0, g: 255, b: 0 };

  it('forcedColors "active" matches (forced-colors: active); contrast "more" matches (prefers-contrast: more)', async () => {
    expect(await boxColour({})).toMatchObject(RED);
    expect(await boxColour({ forcedColors: 'active' })).toMatchObject(BLUE);
    expect(await boxColour({ contrast: 'more' })).toMatchObject(GREEN);
    expect(await boxColour({ forcedColors: 'none', contrast: 'no-preference' })).toMatchObject(RED);
  });

  it('a reused page does not keep the last render’s emulation', async () => {
    // More renders in a row than the service has warm pages, alternating: each is what it asked for.
    for (let i = 0; i < 3; i++) {
      expect(await boxColour({ contrast: 'more' })).toMatchObject(GREEN);
      expect(await boxColour({})).toMatchObject(RED);
      expect(await boxColour({ forcedColors: 'active' })).toMatchObject(BLUE);
      expect(await boxColour({})).toMatchObject(RED);
    }
  });

  it('other values are 400 naming the field', async () => {
    for (const [field, value] of [
      ['forcedColors', 'on'],
      ['contrast', 'less'],
    ] as const) {
      const { status, error } = await refusal('/api/image', { html: page, [field]: value });
      expect(status).toBe(400);
      expect(error.details?.map((d) => d.path)).toEqual([field]);
    }
  });
});

describe("a cookie's sameSite in any case", () => {
  it.each(['lax', 'STRICT', 'lAx', 'Strict'])('sameSite "%s" is accepted and the cookie sent', async (sameSite) => {
    const text = await pdfText({
      url: `${fixture.url}/cookies`,
      // ("none" is left to the schema's unit test: SameSite=None needs Secure, which http:// never sends.)
      cookies: [{ name: 'flavour', value: 'oat', url: fixture.url, sameSite }],
    });
    expect(text).toContain('flavour=oat');
  });

  it('anything else is 400 naming cookies.0.sameSite', async () => {
    const { status, error } = await refusal('/api/pdf', {
      url: `${fixture.url}/cookies`,
      cookies: [{ name: 'a', value: 'b', sameSite: 'laxx' }],
    });
    expect(status).toBe(400);
    expect(error.details?.map((d) => d.path)).toContain('cookies.0.sameSite');
  });
});
