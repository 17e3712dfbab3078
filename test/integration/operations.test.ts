// /api/status and /metrics over the real stack: public aggregate figures that move with real work, and
// kept for key holders when auth.publicOperations is false.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheus, sampleValue } from '../helpers/prometheus.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ jobs: { pollIntervalMs: 100 } });
});
afterAll(async () => {
  await svc?.close();
});

const metrics = async () => {
  const res = await fetch(`${svc.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
};
/** The parts of GET /api/status these tests read (the whole body is compared with toMatchObject). */
interface StatusJson {
  uptimeSeconds: number;
  browser: { renders: number };
  jobs: { succeeded: number };
  monitors: { active: number; paused: number; nextRuns: string[] };
}
const status = async () => {
  const res = await fetch(`${svc.url}/api/status`);
  expect(res.status).toBe(200);
  return res.json() as Promise<StatusJson>;
};
const renderPng = async () => {
  const res = await svc.post('/api/image', { html: '<h1>metrics</h1>', viewport: { width: 200, height: 100 } });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
};

describe('/api/status', () => {
  it('is public and has the figures of the status page', async () => {
    const s = await status();
    expect(s).toMatchObject({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown,
      browser: { up: true, version: expect.stringMatching(/^\d+\./) as unknown },
      render: { active: 0, queued: 0, concurrency: expect.any(Number) as unknown, queueSize: 100 },
      jobs: { queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 0 },
      monitors: { active: 0, paused: 0, nextRuns: [] },
      webhooks: { pending: 0, succeeded: 0, failed: 0 },
    });
    expect(s.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('moves with renders, jobs and monitors', async () => {
    const before = await status();
    await renderPng();
    const key = svc.createKey();
    const job = await svc.call('POST', '/api/image', key.key, { html: '<p>job</p>', async: true });
    expect(job.status).toBe(202);
    const monitor = await svc.call('POST', '/api/monitors', key.key, {
      url: 'http://127.0.0.1:9/',
      schedule: '0 0 1 1 *',
    });
    expect(monitor.status).toBe(201);
    await svc.call('POST', '/api/monitors', key.key, {
      url: 'http://127.0.0.1:9/',
      schedule: '0 0 1 1 *',
      paused: true,
    });
    const after = await until('the job to succeed', async () => {
      const s = await status();
      return s.jobs.succeeded === 1 && s;
    });
    expect(after.browser.renders).toBeGreaterThanOrEqual(before.browser.renders + 2);
    expect(after.monitors).toMatchObject({ active: 1, paused: 1 });
    expect(after.monitors.nextRuns).toHaveLength(1);
    expect(Date.parse(after.monitors.nextRuns[0]!)).toBeGreaterThan(Date.now());
  });

  it('a wrong key is still refused (a key that is sent is always checked)', async () => {
    const res = await fetch(`${svc.url}/api/status`, { headers: { authorization: 'Bearer pw_live_nope' } });
    expect(res.status).toBe(401);
  });
});

describe('/metrics', () => {
  it('parses as Prometheus text with the metrics the contract lists', async () => {
    const m = await metrics();
    for (const [name, type] of <[string, string][]>[
      ['pagewatch_renders_total', 'counter'],
      ['pagewatch_render_duration_seconds', 'histogram'],
      ['pagewatch_render_queue_depth', 'gauge'],
      ['pagewatch_renders_active', 'gauge'],
      ['pagewatch_browser_restarts_total', 'counter'],
      ['pagewatch_jobs', 'gauge'],
      ['pagewatch_webhook_deliveries', 'gauge'],
      ['pagewatch_monitors', 'gauge'],
    ])
      expect(m.types.get(name), name).toBe(type);
    expect(sampleValue(m, 'pagewatch_browser_up')).toBe(1);
    expect(sampleValue(m, 'pagewatch_jobs', { status: 'queued' })).toBe(0);
  });

  it('counters move after renders: ok by kind, failures by their code; durations are observed', async () => {
    const before = await metrics();
    const okBefore = sampleValue(before, 'pagewatch_renders_total', { kind: 'image', outcome: 'ok' }) ?? 0;
    const countBefore = sampleValue(before, 'pagewatch_render_duration_seconds_count', { kind: 'image' }) ?? 0;
    const failedBefore = sampleValue(before, 'pagewatch_renders_total', { kind: 'pdf', outcome: 'url_blocked' }) ?? 0;
    await renderPng();
    await renderPng();
    const blocked = await svc.post('/api/pdf', { url: 'http://10.0.0.1/' });
    expect(blocked.status).toBe(403);
    const after = await metrics();
    expect(sampleValue(after, 'pagewatch_renders_total', { kind: 'image', outcome: 'ok' })).toBe(okBefore + 2);
    expect(sampleValue(after, 'pagewatch_render_duration_seconds_count', { kind: 'image' })).toBe(countBefore + 2);
    expect(sampleValue(after, 'pagewatch_render_duration_seconds_bucket', { kind: 'image', le: '+Inf' })).toBe(
      countBefore + 2,
    );
    expect(sampleValue(after, 'pagewatch_renders_total', { kind: 'pdf', outcome: 'url_blocked' })).toBe(
      failedBefore + 1,
    );
  });

  it('the reader refuses what is not the text format (so the tests above can fail)', () => {
    expect(() => parsePrometheus('pagewatch_x{a=b} 1\n')).toThrow(/bad labels/);
    expect(() => parsePrometheus('just words\n')).toThrow(/bad value/);
    expect(() => parsePrometheus('{a="b"} 1\n')).toThrow(/not a sample/);
    expect(() => parsePrometheus('# TYPE x flavour\n')).toThrow(/bad TYPE/);
  });
});

describe('auth.publicOperations: false (the figures for key holders only)', () => {
  let closed: TestService;
  beforeAll(async () => {
    closed = await startTestService({ auth: { publicOperations: false } });
  });
  afterAll(async () => {
    await closed?.close();
  });
  const get = (method: string, path: string, key?: string) =>
    fetch(`${closed.url}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });

  it('/metrics and /api/status answer 401 without a key (HEAD too) and with an unknown one; 200 with a key', async () => {
    const key = closed.createKey('prometheus');
    for (const path of ['/metrics', '/api/status']) {
      const refused = await get('GET', path);
      expect(refused.status, path).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'unauthorized' } });
      expect((await get('HEAD', path)).status, `HEAD ${path}`).toBe(401);
      expect((await get('GET', path, 'pw_live_nope')).status, path).toBe(401);
    }
    const m = await get('GET', '/metrics', key.key);
    expect(m.status).toBe(200);
    expect(sampleValue(parsePrometheus(await m.text()), 'pagewatch_browser_up')).toBe(1);
    const s = await get('GET', '/api/status', key.key);
    expect(s.status).toBe(200);
    expect(await s.json()).toMatchObject({ status: 'ok', browser: { up: true } });
    // The pages, /health and /ready stay public.
    for (const path of ['/status', '/health', '/ready']) expect((await get('GET', path)).status, path).toBe(200);
  });

  it('the OpenAPI document says these two need a key here', async () => {
    const doc = (await (await get('GET', '/openapi.json')).json()) as {
      paths: Record<string, { get: { security?: unknown[] } }>;
    };
    for (const path of ['/metrics', '/api/status']) expect(doc.paths[path]!.get.security, path).toBeUndefined(); // the document's default: a key
    const open = (await (await fetch(`${svc.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { security?: unknown[] } }>;
    };
    for (const path of ['/metrics', '/api/status']) expect(open.paths[path]!.get.security, path).toContainEqual({});
  });
});

describe('web pages and assets', () => {
  it('serve pages with the strict CSP and assets with their types', async () => {
    const page = await fetch(`${svc.url}/status`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/assets/status.js">');
    const css = await fetch(`${svc.url}/assets/base.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const js = await fetch(`${svc.url}/assets/api.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  /**
   * GET with If-None-Match as a browser revalidates. (Not fetch(): it adds Cache-Control: no-cache to a
   * conditional request, which asks for the full answer.)
   */
  const revalidate = (url: string, etag: string) =>
    new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      http
        .get(url, { headers: { 'if-none-match': etag } }, (res) => {
          let body = '';
          res
            .setEncoding('utf8')
            .on('data', (chunk: string) => {
              body += chunk;
            })
            .on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
        })
        .on('error', reject);
    });

  it('pages and assets carry an ETag: a browser revalidating with it gets 304 and no body', async () => {
    for (const path of ['/', '/monitors', '/status', '/assets/base.css', '/assets/converter.js', '/assets/icon.svg']) {
      const first = await fetch(`${svc.url}${path}`);
      expect(first.status, path).toBe(200);
      const body = await first.text();
      expect(body.length, path).toBeGreaterThan(0);
      const etag = first.headers.get('etag');
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(first.headers.get('cache-control'), path).toBe('no-cache');
      const again = await revalidate(`${svc.url}${path}`, etag!);
      expect(again.status, path).toBe(304);
      expect(again.body, path).toBe('');
      if (path === '/') expect(again.headers['content-security-policy']).toContain("script-src 'self'");
      const stale = await revalidate(`${svc.url}${path}`, '"something-else"');
      expect(stale.status, path).toBe(200);
      expect(stale.body, path).toBe(body);
    }
  });

  it.each([
    '/assets/..%2Fweb%2Froutes.ts',
    '/assets/%2e%2e%2f%2e%2e%2fpackage.json',
    '/assets/routes.ts',
    '/assets/nope.css',
    '/assets/.hidden.js',
    '/assets/..%2F..%2Fpackage.json/x.js',
    '/assets/vendor/..%2F..%2F..%2Fpackage.json',
    '/assets/.git/config.js',
    '/assets/node_modules/preact.js',
    '/assets/vendor/nope.js',
  ])('%s is 404, never a file outside the static folder', async (path) => {
    const res = await fetch(`${svc.url}${path}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('import');
  });
});
