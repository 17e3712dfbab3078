// GET /api/status's last hour over the real stack: render requests that really ended each way are
// counted as such, the percentiles agree with the X-Render-Ms the callers saw, the queue wait shows the
// render that waited; and the cluster's figures (failing monitors, webhook backlog, disk used) follow
// real monitors, deliveries and job results. Every new field is in the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { EXPECTED_OUTCOMES, makeEachOutcome, OUTCOME_SERVICE } from '../helpers/status-outcomes.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The status body and the document are read as untyped JSON, as in openapi.test.ts: their shape is what
// these tests check (typing every step would only restate the assertions as casts).
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment,
   @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- see above */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- see above

let svc: TestService;
let receiver: WebhookReceiver;
beforeAll(async () => {
  svc = await startTestService({ ...OUTCOME_SERVICE, jobs: { pollIntervalMs: 100 } });
  receiver = await startWebhookReceiver((res) => res.writeHead(500).end());
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const status = async (): Promise<Json> => {
  const res = await fetch(`${svc.url}/api/status`);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};

/** Every property of `value`, at every depth, is one the schema documents. */
function expectDocumented(value: unknown, schema: Json, path: string, doc: Json): void {
  if (schema.$ref) schema = doc.components.schemas[(schema.$ref as string).split('/').pop()!];
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries())
      if (schema.items) expectDocumented(item, schema.items, `${path}[${i}]`, doc);
    return;
  }
  if (value === null || typeof value !== 'object' || !schema.properties) return;
  for (const name of (schema.required as string[] | undefined) ?? [])
    expect(value, `${path} has ${name}`).toHaveProperty(name);
  for (const [name, v] of Object.entries(value)) {
    expect(Object.keys(schema.properties), `${path}.${name} is documented`).toContain(name);
    expectDocumented(v, schema.properties[name], `${path}.${name}`, doc);
  }
}

describe('/api/status: the last hour', () => {
  it("counts each way a render request ended, with p50/p95 agreeing with the callers' X-Render-Ms", async () => {
    const key = svc.createKey('outcomes').key;
    const renderMs = await makeEachOutcome(svc, key);
    const s = await status();
    const h = s.lastHour;
    expect(h.node).toBe(s.node.id);
    expect(h.renders).toEqual(EXPECTED_OUTCOMES);
    expect(h.minutes).toHaveLength(60);
    // The minutes add up to the hour (the scenario may straddle a minute boundary).
    const summed = Object.fromEntries(
      Object.keys(EXPECTED_OUTCOMES)
        .filter((o) => o !== 'total')
        .map((o) => [o, h.minutes.reduce((n: number, m: Json) => n + (m.renders[o] as number), 0)]),
    );
    expect({ ...summed, total: EXPECTED_OUTCOMES.total }).toEqual(EXPECTED_OUTCOMES);
    expect(Date.parse(h.to) - Date.parse(h.from)).toBeLessThanOrEqual(3600_000);
    expect(h.to.endsWith('Z')).toBe(true);

    // The successful renders' times, as their callers saw them.
    expect(h.renderMs.count).toBe(renderMs.length);
    expect(h.renderMs.max).toBe(Math.max(...renderMs));
    const sorted = [...renderMs].sort((a, b) => a - b);
    expect(h.renderMs.p50).toBeGreaterThanOrEqual(sorted[0]!);
    expect(h.renderMs.p50).toBeLessThanOrEqual(sorted[1]! * 1.1);
    expect(h.renderMs.p95).toBeGreaterThanOrEqual(h.renderMs.p50);
    expect(h.renderMs.p95).toBeLessThanOrEqual(h.renderMs.max);
    // The slow render held the one slot for 2.5 s: the render queued behind it waited most of that.
    // Renders that got a slot: 3 ok, the failed one and the timed-out one.
    expect(h.queueWaitMs.count).toBe(5);
    expect(h.queueWaitMs.max).toBeGreaterThan(1000);
    expect(h.queueWaitMs.p50).toBeLessThan(100);
  });

  it("the cluster's figures: a failing monitor, its webhook waiting for a retry, and the bytes kept", async () => {
    const key = svc.createKey('cluster').key;
    const before = await status();
    expect(before.monitors.failing).toBe(0);
    expect(before.webhookDeliveries).toEqual({
      pending: 0,
      retrying: 0,
      oldestPendingAt: null,
      lastHour: { succeeded: 0, failed: 0 },
    });

    const created = await svc.call('POST', '/api/monitors', key, {
      name: 'Refused',
      url: 'http://127.0.0.1:9/',
      schedule: '0 0 1 1 *',
      notify: ['failure'],
      webhookUrl: `${receiver.url}/hook`,
    });
    expect(created.status).toBe(201);
    const monitor = (await created.json()) as Json;
    expect((await svc.call('POST', `/api/monitors/${monitor.id}/run`, key)).status).toBe(202);
    await until('the monitor to be counted failing', async () => (await status()).monitors.failing === 1, 30_000);
    await receiver.waitForHits(1);
    const s = await until('the delivery to wait for its retry', async () => {
      const now = await status();
      return now.webhookDeliveries.retrying === 1 && now;
    });
    expect(s.webhookDeliveries.pending).toBe(1);
    expect(Date.parse(s.webhookDeliveries.oldestPendingAt)).toBeLessThanOrEqual(Date.now());

    // An async job's result is kept on disk: its bytes count (the figure is cached for up to 5 s).
    const job = await svc.call('POST', '/api/image', key, { html: '<h1>kept</h1>', async: true });
    expect(job.status).toBe(202);
    const { id } = (await job.json()) as Json;
    const done = await until('the job to succeed', async () => {
      const j = (await (await svc.call('GET', `/api/jobs/${id}`, key)).json()) as Json;
      return j.status === 'succeeded' && j;
    });
    const bytes = (await (await svc.call('GET', `/api/jobs/${id}/result`, key)).arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(0);
    expect(done.status).toBe('succeeded');
    await until('the result bytes', async () => (await status()).storage.resultBytes === bytes, 15_000, 250);
    expect((await status()).storage.captureBytes).toBe(0); // the monitor's one capture failed: no image
  });

  it('documents every field it answers in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as Json;
    const s = await status();
    expectDocumented(s, doc.components.schemas.Status as Json, 'status', doc);
    expect(Object.keys(doc.components.schemas.Status.properties)).toEqual(
      expect.arrayContaining(['lastHour', 'webhookDeliveries', 'storage']),
    );
  });
});
