// The async flow end to end: submit → 202 + Location → the worker renders with the real browser →
// the signed job.succeeded webhook (verified by the reference implementation) → the result bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng } from '../helpers/png.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
let fixture: FixtureServer;
let hooks: WebhookReceiver;
let key: { key: string; webhookSecret: string };

beforeAll(async () => {
  [svc, fixture, hooks] = await Promise.all([
    startTestService({ jobs: { pollIntervalMs: 200 } }),
    startFixtureServer(),
    startWebhookReceiver(),
  ]);
  key = svc.createKey('flow');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fixture?.close(), hooks?.close()]);
});

async function waitForJob(
  id: string,
  statuses = ['succeeded', 'failed', 'canceled'],
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  let status: unknown;
  return until(
    () => `job ${id} to be ${statuses.join(' or ')}; still ${String(status)}`,
    async () => {
      const job = (await (await svc.call('GET', `/api/jobs/${id}`, key.key)).json()) as Record<string, unknown>;
      status = job.status;
      return statuses.includes(job.status as string) && job;
    },
    timeoutMs,
    100,
  );
}

describe('async PDF with a webhook', () => {
  it('202 with the job and Location; the webhook is signed and points at the result; the result is the PDF', async () => {
    const res = await svc.call('POST', '/api/pdf', key.key, {
      url: `${fixture.url}/invoice`,
      async: true,
      webhookUrl: hooks.url,
    });
    expect(res.status).toBe(202);
    const job = (await res.json()) as {
      id: string;
      status: string;
      kind: string;
      attempts: number;
      webhookUrl: string;
      createdAt: string;
    };
    expect(res.headers.get('location')).toBe(`/api/jobs/${job.id}`);
    expect(job).toMatchObject({ kind: 'pdf', status: 'queued', attempts: 0, webhookUrl: hooks.url });

    const [hit] = await hooks.waitForHits(1);
    const event = verifyHit(key.webhookSecret, hit!);
    expect(event.type).toBe('job.succeeded');
    expect(event.data).toMatchObject({ jobId: job.id, status: 'succeeded', kind: 'pdf', attempts: 1, pageCount: 1 });
    const result = event.data.result as { url: string; contentType: string; bytes: number };
    expect(result.url).toBe(`${svc.url}/api/jobs/${job.id}/result`);

    const done = await waitForJob(job.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      result: { url: result.url, contentType: 'application/pdf', bytes: result.bytes },
    });
    const file = await svc.call('GET', `/api/jobs/${job.id}/result`, key.key);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    const bytes = await bytesOf(file);
    expect(bytes.length).toBe(result.bytes);
    expect((await parsePdf(bytes)).text).toContain('INVOICE-TEST-MARKER');
  });

  it('an image job without a webhook is polled to success; the result is a PNG of the viewport', async () => {
    const res = await svc.call('POST', '/api/image', key.key, {
      html: '<body style="margin:0;background:#0f0">',
      viewport: { width: 320, height: 200 },
      async: true,
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await waitForJob(id)).toMatchObject({ status: 'succeeded' });
    const png = decodePng(await bytesOf(await svc.call('GET', `/api/jobs/${id}/result`, key.key)));
    expect([png.width, png.height]).toEqual([320, 200]);
    expect(png.pixel(10, 10)).toMatchObject({ r: 0, g: 255, b: 0 });
  });

  it('a page that fails to render fails the job after one try, with the error, and says so by webhook', async () => {
    const before = hooks.hits.length;
    const res = await svc.call('POST', '/api/pdf', key.key, {
      url: `${fixture.url}/status/404`,
      async: true,
      webhookUrl: hooks.url,
    });
    const { id } = (await res.json()) as { id: string };
    const job = await waitForJob(id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'render_failed' } });
    const hits = await hooks.waitForHits(before + 1);
    const event = verifyHit(key.webhookSecret, hits[before]!);
    expect(event).toMatchObject({
      type: 'job.failed',
      data: { jobId: id, status: 'failed', error: { code: 'render_failed' } },
    });
    expect((await errorOf(await svc.call('GET', `/api/jobs/${id}/result`, key.key))).code).toBe('not_found');
  });
});
