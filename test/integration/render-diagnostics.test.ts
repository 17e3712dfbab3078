// Every render's diagnostics (failed resources, console errors, exceptions, the load's timeline) in the JSON
// answer, an async job's result and the binary answer's X-Render-* headers; and the failure rules
// (failOnHttpStatusCodes, failOnResourceHttpStatusCodes with ignoreResourceHttpStatusDomains,
// failOnResourceLoadingFailed, failOnConsoleExceptions) turning what was seen into a 422 that lists it.
// The page's resources come from real servers on 127.0.0.1 and 127.0.0.3; nowhere.invalid never resolves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderDiagnostics } from '../../src/domain/render-diagnostics.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let key: string;
let web: FixtureServer; // 127.0.0.1: the page, a 404 image, a 500 stylesheet
let other: FixtureServer; // 127.0.0.3: another host, with a 404 image of its own

const doc = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

/** The page with one of each: 404 image, 500 stylesheet, an image on a host that does not resolve, a 404 on
 * another host, a console.error and a thrown exception. */
const brokenPage = () =>
  doc(
    `<p>BROKEN-PAGE-MARKER</p>
     <img src="/missing.png" alt="">
     <img src="http://nowhere.invalid/logo.png" alt="">
     <img src="${other.url}/elsewhere.png" alt="">
     <script>console.error('the chart could not be drawn', 42);</script>
     <script>throw new TypeError('the widget is broken');</script>`,
    '<link rel="stylesheet" href="/broken.css">',
  );

beforeAll(async () => {
  [svc, web, other] = await Promise.all([
    startTestService({
      egress: { allowHosts: ['127.0.0.1', '127.0.0.3', 'localhost'] },
      limits: { maxFullPageHeight: 2000 }, // small, for the cut a size cap makes
    }),
    startFixtureServer(),
    startFixtureServer({ host: '127.0.0.3' }),
  ]);
  key = svc.createKey('diagnostics').key;
  web.route('/broken', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(brokenPage()));
  web.route('/missing.png', (_req, res) => void res.writeHead(404).end('no such image'));
  web.route('/broken.css', (_req, res) => void res.writeHead(500, { 'content-type': 'text/css' }).end('oops'));
  other.route('/elsewhere.png', (_req, res) => void res.writeHead(404).end('no such image'));
  web.route('/clean', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(doc('<p>CLEAN</p>')));
  web.route('/many-errors', (req, res) => {
    const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'));
    void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(doc(`<script>for (let i = 0; i < ${n}; i++) console.error('error ' + i);</script>`));
  });
  web.route(
    '/long-error',
    (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(doc(`<script>console.error('${'x'.repeat(1000)}');console.error('${'y'.repeat(999)}');</script>`)),
  );
  web.route(
    '/late-element',
    (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          doc(
            `<script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="late">LATE</p>'), 50)</script>`,
          ),
        ),
  );
});
afterAll(async () => {
  await Promise.all([svc?.close(), web?.close(), other?.close()]);
});

interface RenderJsonBody {
  meta: { renderMs: number };
  diagnostics: RenderDiagnostics;
}

async function jsonRender(body: Record<string, unknown>, kind = 'image'): Promise<RenderJsonBody> {
  const res = await svc.post(`/api/${kind}`, { response: 'json', ...body });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as RenderJsonBody;
}

async function refused(body: Record<string, unknown>, status = 422) {
  const res = await svc.post('/api/pdf', body);
  expect(res.status).toBe(status);
  return errorOf(res);
}

/** The failed resources of the broken page, as each must be listed. */
function expectBrokenPageSeen(d: RenderDiagnostics): void {
  const byUrl = (suffix: string) => d.failedResources.find((r) => r.url.endsWith(suffix));
  expect(byUrl('/missing.png')).toEqual({ url: `${web.url}/missing.png`, resourceType: 'image', status: 404 });
  expect(byUrl('/broken.css')).toEqual({ url: `${web.url}/broken.css`, resourceType: 'stylesheet', status: 500 });
  expect(byUrl('/elsewhere.png')).toMatchObject({ resourceType: 'image', status: 404 });
  expect(byUrl('nowhere.invalid/logo.png')).toEqual({
    url: 'http://nowhere.invalid/logo.png',
    resourceType: 'image',
    error: 'host not found: nowhere.invalid does not resolve to an address',
  });
  expect(d.failedResources).toHaveLength(4);
  expect(d.consoleErrors).toHaveLength(1);
  expect(d.consoleErrors[0]!.text).toBe('the chart could not be drawn 42');
  expect(d.consoleErrors[0]!.location).toMatch(/\/broken:\d+:\d+$/);
  expect(d.exceptions).toHaveLength(1);
  expect(d.exceptions[0]!.text).toBe('TypeError: the widget is broken');
  expect(d.exceptions[0]!.location).toContain(`${web.url}/broken`);
  expect(d.missingGlyphs).toEqual([]);
}

describe('diagnostics of every render', () => {
  it('the JSON answer lists the failed resources, console errors and exceptions, and times each stage', async () => {
    const body = await jsonRender({ url: `${web.url}/broken` });
    expectBrokenPageSeen(body.diagnostics);
    const { load } = body.diagnostics;
    expect(load.endedBy).toBe('load');
    expect(Object.keys(load.stagesMs)).toEqual(['queue', 'navigation', 'waits', 'pageChanges', 'glyphs', 'capture']);
    const sum = Object.values(load.stagesMs).reduce((a, b) => a + b, 0);
    expect(sum).toBeLessThanOrEqual(body.meta.renderMs);
    expect(Object.values(load.stagesMs).every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true);
  });

  it('the binary answer counts them in headers; a clean page counts none', async () => {
    const res = await svc.post('/api/pdf', { url: `${web.url}/broken` });
    expect(res.status).toBe(200);
    expect((await parsePdf(await bytesOf(res))).text).toContain('BROKEN-PAGE-MARKER');
    expect(res.headers.get('x-render-failed-resources')).toBe('4');
    expect(res.headers.get('x-render-console-errors')).toBe('1');
    expect(res.headers.get('x-render-exceptions')).toBe('1');
    expect(res.headers.get('x-render-missing-glyphs')).toBe('0');

    const clean = await svc.post('/api/image', { url: `${web.url}/clean` });
    expect(clean.status).toBe(200);
    for (const name of ['failed-resources', 'console-errors', 'exceptions', 'missing-glyphs'])
      expect(clean.headers.get(`x-render-${name}`), name).toBe('0');
  });

  it("an async job's result carries the diagnostics", async () => {
    const res = await svc.call('POST', '/api/pdf', key, { async: true, url: `${web.url}/broken` });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const job = await until(`job ${id} to succeed`, async () => {
      const j = (await (await svc.call('GET', `/api/jobs/${id}`, key)).json()) as {
        status: string;
        result?: { diagnostics: RenderDiagnostics };
      };
      if (j.status === 'failed') throw new Error(`job failed: ${JSON.stringify(j)}`);
      return j.status === 'succeeded' ? j : undefined;
    });
    expectBrokenPageSeen(job.result!.diagnostics);
  });

  it('the main document that answered an error is listed when rendered anyway', async () => {
    const body = await jsonRender({ url: `${web.url}/status/404`, failOnHttpError: false });
    expect(body.diagnostics.failedResources).toEqual([
      { url: `${web.url}/status/404`, resourceType: 'document', status: 404 },
    ]);
  });

  it('says which wait ended the load: waitForSelector, waitForFunction, delay', async () => {
    const url = `${web.url}/late-element`;
    expect((await jsonRender({ url, waitForSelector: '#late' })).diagnostics.load.endedBy).toBe('waitForSelector');
    expect(
      (await jsonRender({ url, waitForFunction: '!!document.getElementById("late")' })).diagnostics.load.endedBy,
    ).toBe('waitForFunction');
    const delayed = await jsonRender({ url, delay: 100 });
    expect(delayed.diagnostics.load.endedBy).toBe('delay');
    expect(delayed.diagnostics.load.stagesMs.delay).toBeGreaterThanOrEqual(99);
  });

  it('a page still loading (an image below the capture that never arrives) is taken once its fonts have loaded', async () => {
    // Chromium's document.fonts.ready also waits for the document's load: a wait on it would run out at
    // half the budget (fontsAndImagesTimeout) for a page whose fonts were there from the start.
    const held: { destroy(): void }[] = [];
    web.route('/never.png', (_req, res) => void held.push(res)); // headers never sent
    web.route(
      '/still-loading',
      (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(doc('<p>STILL LOADING</p><div style="height:3000px"></div><img src="/never.png" alt="">')),
    );
    try {
      const url = `${web.url}/still-loading`;
      for (const javaScriptEnabled of [true, false]) {
        const body = await jsonRender({ url, waitUntil: 'domcontentloaded', javaScriptEnabled, timeout: 20_000 });
        expect(body.diagnostics.load.endedBy, `javaScriptEnabled ${javaScriptEnabled}`).toBe('domcontentloaded');
      }
      expect(held.length).toBeGreaterThanOrEqual(1); // the image was asked for and is still pending
    } finally {
      for (const res of held) res.destroy();
    }
  });

  it('a web font that never arrives is waited for, with or without script, until half the budget is gone', async () => {
    const held: { destroy(): void }[] = [];
    web.route('/never.woff2', (_req, res) => void held.push(res)); // headers never sent
    const head = '<style>@font-face{font-family:Slow;src:url(/never.woff2)} p{font-family:Slow,sans-serif}</style>';
    web.route(
      '/slow-font',
      (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(doc('<p>SLOW FONT</p>', head)),
    );
    try {
      for (const javaScriptEnabled of [true, false]) {
        // domcontentloaded: a font asked for before the load holds the load event back as well.
        const body = await jsonRender({
          url: `${web.url}/slow-font`,
          waitUntil: 'domcontentloaded',
          javaScriptEnabled,
          timeout: 4000,
        });
        expect(body.diagnostics.load.endedBy, `javaScriptEnabled ${javaScriptEnabled}`).toBe('fontsAndImagesTimeout');
      }
    } finally {
      for (const res of held) res.destroy();
    }
  });

  it("says a size cap's cut (truncated, as X-Truncated); a whole image has none", async () => {
    const page = (height: number) => doc(`<div style="height:${height}px">tall</div>`, '<style>body{margin:0}</style>');
    const res = await svc.post('/api/image', { html: page(3000), fullPage: true, response: 'json' });
    expect(res.headers.get('x-truncated')).toBe('full-page');
    expect(((await res.json()) as RenderJsonBody).diagnostics.truncated).toBe('full-page');
    const whole = await jsonRender({ html: page(2000), fullPage: true });
    expect(whole.diagnostics.truncated).toBeUndefined();
  });

  it('lists at most 50 console errors and counts the rest; texts are cut at 1000 characters', async () => {
    const at = await jsonRender({ url: `${web.url}/many-errors?n=50` });
    expect(at.diagnostics.consoleErrors).toHaveLength(50);
    expect(at.diagnostics.omitted).toBeUndefined();
    const over = await svc.post('/api/pdf', { url: `${web.url}/many-errors?n=51`, response: 'json' });
    const overBody = (await over.json()) as RenderJsonBody;
    expect(overBody.diagnostics.consoleErrors).toHaveLength(50);
    expect(overBody.diagnostics.omitted).toEqual({ consoleErrors: 1 });
    expect(over.headers.get('x-render-console-errors')).toBe('51');

    const long = await jsonRender({ url: `${web.url}/long-error` });
    const [atCap, underCap] = long.diagnostics.consoleErrors.map((e) => e.text);
    expect(atCap).toBe('x'.repeat(1000)); // exactly at the cap: whole
    expect(underCap).toBe('y'.repeat(999));
    const cut = await jsonRender({ html: doc(`<script>console.error('${'z'.repeat(1001)}')</script>`) });
    expect(cut.diagnostics.consoleErrors[0]!.text).toBe(`${'z'.repeat(999)}…`);
  });
});

describe('failure rules', () => {
  it('failOnResourceHttpStatusCodes: [499] fails on the 404s (listing each), not on the 500', async () => {
    const err = await refused({ url: `${web.url}/broken`, failOnResourceHttpStatusCodes: [499] });
    expect(err.code).toBe('render_failed');
    expect(err.message).toMatch(/^The render failed by failOnResourceHttpStatusCodes: .*HTTP 404/);
    const listed = err.details!.map((d) => d.message).sort();
    expect(listed).toEqual(
      [`${other.url}/elsewhere.png (image): HTTP 404`, `${web.url}/missing.png (image): HTTP 404`].sort(),
    );
    expect(err.details!.every((d) => d.path === 'failOnResourceHttpStatusCodes')).toBe(true);
  });

  it('failOnResourceHttpStatusCodes: [599] fails on the 500 stylesheet; an exact [500] too; [501] does not', async () => {
    for (const codes of [[599], [500]]) {
      const err = await refused({ url: `${web.url}/broken`, failOnResourceHttpStatusCodes: codes });
      expect(err.details, JSON.stringify(codes)).toEqual([
        { path: 'failOnResourceHttpStatusCodes', message: `${web.url}/broken.css (stylesheet): HTTP 500` },
      ]);
    }
    const res = await svc.post('/api/pdf', { url: `${web.url}/broken`, failOnResourceHttpStatusCodes: [501] });
    expect(res.status).toBe(200);
  });

  it('ignoreResourceHttpStatusDomains leaves a domain out of the judgement, not out of the diagnostics', async () => {
    const err = await refused({
      url: `${web.url}/broken`,
      failOnResourceHttpStatusCodes: [499],
      ignoreResourceHttpStatusDomains: ['127.0.0.3'],
    });
    expect(err.details).toEqual([
      { path: 'failOnResourceHttpStatusCodes', message: `${web.url}/missing.png (image): HTTP 404` },
    ]);
    const body = await jsonRender({
      url: `${web.url}/broken`,
      failOnResourceHttpStatusCodes: [404],
      ignoreResourceHttpStatusDomains: ['127.0.0.1', '127.0.0.3'],
    });
    expect(body.diagnostics.failedResources.filter((r) => r.status === 404)).toHaveLength(2);
  });

  it('failOnResourceLoadingFailed fails on the host that does not resolve, in words', async () => {
    const err = await refused({ url: `${web.url}/broken`, failOnResourceLoadingFailed: true });
    expect(err.message).toBe(
      'The render failed by failOnResourceLoadingFailed: http://nowhere.invalid/logo.png (image): ' +
        'host not found: nowhere.invalid does not resolve to an address.',
    );
    // Statuses are not loading failures: a page whose resources all answered (some with errors) renders.
    const html = doc(`<img src="${web.url}/missing.png" alt="">`);
    expect((await svc.post('/api/pdf', { html, failOnResourceLoadingFailed: true })).status).toBe(200);
  });

  it('failOnConsoleExceptions fails on the uncaught exception; console.error alone does not', async () => {
    const err = await refused({ url: `${web.url}/broken`, failOnConsoleExceptions: true });
    expect(err.message).toBe('The render failed by failOnConsoleExceptions: TypeError: the widget is broken.');
    expect(err.details).toEqual([{ path: 'failOnConsoleExceptions', message: 'TypeError: the widget is broken' }]);
    const html = doc(`<script>console.error('only logged')</script>`);
    expect((await svc.post('/api/pdf', { html, failOnConsoleExceptions: true })).status).toBe(200);
  });

  it('several rules at once: every broken one is in details', async () => {
    const err = await refused({
      url: `${web.url}/broken`,
      failOnResourceHttpStatusCodes: [404, 599],
      failOnResourceLoadingFailed: true,
      failOnConsoleExceptions: true,
    });
    expect(err.details!.map((d) => d.path).sort()).toEqual([
      'failOnConsoleExceptions',
      'failOnResourceHttpStatusCodes',
      'failOnResourceHttpStatusCodes',
      'failOnResourceHttpStatusCodes',
      'failOnResourceLoadingFailed',
    ]);
    expect(err.message).toMatch(/; and 4 more, listed in details\.$/);
  });

  it('failOnHttpStatusCodes judges the main document: X99 ranges, exact codes, [] never', async () => {
    const at = (status: number) => `${web.url}/status/${status}`;
    const fails = async (status: number, codes: number[]) =>
      (await svc.post('/api/pdf', { url: at(status), failOnHttpStatusCodes: codes })).status === 422;
    expect(await fails(404, [499])).toBe(true);
    expect(await fails(400, [499])).toBe(true); // the range's lower edge
    expect(await fails(499, [499])).toBe(true); // and its upper edge
    expect(await fails(500, [499])).toBe(false); // just past it
    expect(await fails(503, [599])).toBe(true);
    expect(await fails(404, [500])).toBe(false); // the list replaces failOnHttpError's "any >= 400"
    expect(await fails(404, [404])).toBe(true);
    expect(await fails(404, [])).toBe(false);
    const err = await refused({ url: at(410), failOnHttpStatusCodes: [499] });
    expect(err.message).toBe(
      'The page answered HTTP 410: check the URL, or leave it out of failOnHttpStatusCodes to render it anyway.',
    );
  });

  it('refuses failOnHttpError with failOnHttpStatusCodes, and bad codes, lists and domains, naming the field', async () => {
    const url = `${web.url}/clean`;
    const both = await refused({ url, failOnHttpError: false, failOnHttpStatusCodes: [499] }, 400);
    expect(both.details!.map((d) => d.path)).toContain('failOnHttpStatusCodes');
    for (const [field, value] of [
      ['failOnHttpStatusCodes', [99]],
      ['failOnHttpStatusCodes', [600]],
      ['failOnResourceHttpStatusCodes', [404.5]],
      ['failOnResourceHttpStatusCodes', Array<number>(101).fill(404)],
      ['ignoreResourceHttpStatusDomains', ['https://example.com']],
      ['ignoreResourceHttpStatusDomains', ['example.com:8080']],
      ['ignoreResourceHttpStatusDomains', Array<string>(101).fill('example.com')],
    ] as const) {
      const err = await refused({ url, [field]: value }, 400);
      expect(
        err.details!.some((d) => d.path.startsWith(field)),
        `${field} ${JSON.stringify(value).slice(0, 40)}`,
      ).toBe(true);
    }
    // At the edges: 100 codes, 100 domains, codes 100 and 599, "*."-prefixed domains.
    const edge = await svc.post('/api/pdf', {
      url,
      failOnResourceHttpStatusCodes: [100, 599, ...Array<number>(98).fill(404)],
      ignoreResourceHttpStatusDomains: ['*.example.com', '.example.org', ...Array<string>(98).fill('example.net')],
    });
    expect(edge.status).toBe(200);
  });
});
