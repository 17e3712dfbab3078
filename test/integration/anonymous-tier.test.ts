// The anonymous tier's own limits, over the real stack: a shorter timeout, one render at a time per
// client address (an IPv6 /64 being one client), and PDFs of at most limits.anonymousMaxPdfPages pages.
// trustProxy: 1 lets each test present its own client address in X-Forwarded-For. A "held" fixture
// page answers only when the test releases it, so "a render is in progress" is a fact, not a race.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

/** The defaults (config/default.json), stated: the test helper widens the anonymous tier for other tests. */
const DEFAULT_ANONYMOUS_LIMITS = {
  anonymousMaxTimeoutMs: 30_000,
  anonymousConcurrencyPerIp: 1,
  anonymousMaxPdfPages: 50,
};

const pagesHtml = (n: number) =>
  `<style>@page { margin: 0 } div { break-after: page }</style>` +
  Array.from({ length: n }, (_, i) => `<div>page ${i + 1}</div>`).join('');

describe('the anonymous tier', () => {
  let service: TestService;
  let fx: FixtureServer;
  let key: string;
  let held: { arrived: number; release: () => void; responses: ServerResponse[] };

  beforeAll(async () => {
    fx = await startFixtureServer();
    held = { arrived: 0, responses: [], release: () => {} };
    held.release = () => {
      for (const res of held.responses.splice(0)) res.end('<p>released</p>');
    };
    fx.route('/held', (_req, res) => {
      held.arrived++;
      res.writeHead(200, { 'content-type': 'text/html' });
      held.responses.push(res);
    });
    service = await startTestService({ trustProxy: 1, limits: DEFAULT_ANONYMOUS_LIMITS });
    key = service.createKey().key;
  });
  afterAll(async () => {
    held?.release();
    await service?.close();
    await fx?.close();
  });

  const from = (ip: string, path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${service.url}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      signal,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    });
  const quick = { html: '<p>quick</p>' };

  /**
   * Starts an anonymous render of /held from `ip` and waits until Chromium is really waiting on it.
   * The response comes back wrapped: an async function returning a bare promise would wait for it.
   */
  async function holdRender(
    ip: string,
    extra: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<{ response: Promise<Response> }> {
    const before = held.arrived;
    const pending = from(ip, '/api/image', { url: `${fx.url}/held`, ...extra }, signal);
    pending.catch(() => {}); // an aborted one rejects; the test looks at the slot instead
    await until('the held page to be requested', () => held.arrived > before);
    return { response: pending };
  }

  describe('timeout', () => {
    it('30,000 ms is accepted without a key; 30,001 is a 400 naming timeout and the limit', async () => {
      expect((await from('198.51.100.1', '/api/pdf', { ...quick, timeout: 30_000 })).status).toBe(200);
      const over = await from('198.51.100.1', '/api/pdf', { ...quick, timeout: 30_001 });
      expect(over.status).toBe(400);
      const err = await errorOf(over);
      expect(err.code).toBe('invalid_request');
      expect(err.details).toEqual([
        {
          path: 'timeout',
          message:
            'timeout can be at most 30 s (30000) without an API key: give a smaller number, or use an API key, ' +
            'which allows longer renders.',
        },
      ]);
    });

    it('below the schema default (30 s), a request that sends no timeout gets the limit instead of a 400', async () => {
      const strict = await startTestService({ limits: { ...DEFAULT_ANONYMOUS_LIMITS, anonymousMaxTimeoutMs: 2000 } });
      try {
        const post = (body: Record<string, unknown>) => strict.post('/api/image', { url: `${fx.url}/held`, ...body });
        const timedOut = await post({});
        expect(timedOut.status).toBe(504);
        expect((await errorOf(timedOut)).message).toMatch(
          /timeout of 2 s; .*raise timeout \(in milliseconds, now 2000\)/,
        );
        expect((await post({ timeout: 2001 })).status).toBe(400);
      } finally {
        held.release();
        await strict.close();
      }
    });

    it('a key raises it to limits.maxTimeoutMs', async () => {
      expect((await service.call('POST', '/api/pdf', key, { ...quick, timeout: 120_000 })).status).toBe(200);
    });
  });

  describe('renders at once per client address', () => {
    it('a second render while one is in progress is 429 with Retry-After and the reason; other clients and keys go on', async () => {
      const { response: first } = await holdRender('198.51.100.10');
      const refused = await from('198.51.100.10', '/api/pdf', quick);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await errorOf(refused)).toMatchObject({
        code: 'rate_limited',
        message: expect.stringMatching(/1 render at a time per client address.*API key/) as unknown,
      });
      expect((await from('198.51.100.11', '/api/pdf', quick)).status).toBe(200);
      expect((await service.call('POST', '/api/pdf', key, quick, { 'x-forwarded-for': '198.51.100.10' })).status).toBe(
        200,
      );

      held.release();
      expect((await first).status).toBe(200);
      expect((await from('198.51.100.10', '/api/pdf', quick)).status).toBe(200); // the slot was freed
    });

    it('the slot is freed when the render fails (here: its timeout)', async () => {
      const { response: first } = await holdRender('198.51.100.20', { timeout: 1000 });
      expect((await first).status).toBe(504);
      expect((await from('198.51.100.20', '/api/pdf', quick)).status).toBe(200);
      held.release();
    });

    it('the slot is freed when the client disconnects', async () => {
      const controller = new AbortController();
      await holdRender('198.51.100.30', {}, controller.signal);
      expect((await from('198.51.100.30', '/api/pdf', quick)).status).toBe(429);
      controller.abort();
      // The service notices the closed connection and cancels the render; until then, 429s.
      await until('the slot to be freed', async () => (await from('198.51.100.30', '/api/pdf', quick)).status === 200);
      held.release();
    });

    it('IPv6 addresses of one /64 share the slot; another /64 has its own', async () => {
      const { response: first } = await holdRender('2001:db8:5:1::1');
      expect((await from('2001:db8:5:1:ffff::2', '/api/pdf', quick)).status).toBe(429);
      expect((await from('2001:db8:5:2::1', '/api/pdf', quick)).status).toBe(200);
      held.release();
      expect((await first).status).toBe(200);
    });
  });

  describe('PDF pages', () => {
    async function pdfFrom(ip: string, body: Record<string, unknown>): Promise<{ res: Response; pages?: number }> {
      const res = await from(ip, '/api/pdf', body);
      if (res.status !== 200) return { res };
      const pdf = await parsePdf(await bytesOf(res));
      expect(res.headers.get('x-page-count')).toBe(String(pdf.pageCount));
      return { res, pages: pdf.pageCount };
    }

    it('50 pages are rendered without a key; 51 are a 422 that names the limit and the key', async () => {
      const at = await pdfFrom('198.51.100.40', { html: pagesHtml(50) });
      expect(at.res.status).toBe(200);
      expect(at.pages).toBe(50);
      const over = await pdfFrom('198.51.100.40', { html: pagesHtml(51) });
      expect(over.res.status).toBe(422);
      expect(await errorOf(over.res)).toMatchObject({
        code: 'render_failed',
        message: expect.stringMatching(
          /more than 50 pages.*without an API key.*use an API key, which lifts the limit/,
        ) as unknown,
      });
    });

    it('with a key, 51 pages (and more) are rendered', async () => {
      const res = await service.call('POST', '/api/pdf', key, { html: pagesHtml(51) });
      expect(res.status).toBe(200);
      expect((await parsePdf(await bytesOf(res))).pageCount).toBe(51);
    });

    it('the limit counts the pages pageRanges selects', async () => {
      const doc = pagesHtml(100);
      const last50 = await pdfFrom('198.51.100.41', { html: doc, pageRanges: '51-100' });
      expect(last50.pages).toBe(50);
      expect(
        (await parsePdf(await bytesOf(await from('198.51.100.41', '/api/pdf', { html: doc, pageRanges: '51-100' }))))
          .text,
      ).toMatch(/page 51[\s\S]*page 100/);
      expect((await pdfFrom('198.51.100.41', { html: doc, pageRanges: '1-10,60-99' })).pages).toBe(50);
      expect((await pdfFrom('198.51.100.41', { html: doc, pageRanges: '40-100' })).res.status).toBe(422);
      expect((await pdfFrom('198.51.100.41', { html: doc, pageRanges: '99-100' })).pages).toBe(2);
    });
  });
});
