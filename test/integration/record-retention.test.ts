// Record retention (issue #10, finding 9): the sweeper deletes finished job rows of every kind and
// finished webhook deliveries with their attempts once they are older than jobs.recordTtlDays (a
// fraction here: half a day), in batches, removing a result file still on disk first and the
// idempotency key that points at the job. Real rows are made through the API and then aged by writing
// old timestamps; a row one second younger than the cut stays, and so does anything unfinished.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const TTL_MS = 0.5 * 86_400_000;

let svc: TestService;
let fx: FixtureServer;
let hooks: WebhookReceiver;

beforeAll(async () => {
  fx = await startFixtureServer();
  hooks = await startWebhookReceiver();
  svc = await startTestService({
    jobs: { pollIntervalMs: 200, recordTtlDays: 0.5, sweepIntervalMs: 3_600_000 }, // sweeps only when the test says
    rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
  });
});
afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fx?.close();
});

const statusOf = (id: string) =>
  (svc.db.prepare('SELECT status FROM jobs WHERE id = ?').get(id) as { status: string } | undefined)?.status;

describe('record retention', () => {
  it('deletes finished jobs and deliveries older than jobs.recordTtlDays; one second younger stays', async () => {
    const key = svc.createKey('retention');
    const submit = async (body: Record<string, unknown>, idem?: string) => {
      const res = await svc.call(
        'POST',
        '/api/pdf',
        key.key,
        { async: true, ...body },
        idem ? { 'idempotency-key': idem } : {},
      );
      expect(res.status).toBe(202);
      return ((await res.json()) as { id: string }).id;
    };
    const oldOk = await submit({ html: '<p>old</p>', webhookUrl: hooks.url }, 'idem-old');
    const youngOk = await submit({ html: '<p>young</p>', webhookUrl: hooks.url });
    const oldFailed = await submit({ url: `${fx.url}/status/404` });
    const oldCanceled = await submit({ url: `${fx.url}/slow?ms=60000`, timeout: 60_000 });
    await until(
      'the jobs to finish',
      () => statusOf(oldOk) === 'succeeded' && statusOf(youngOk) === 'succeeded' && statusOf(oldFailed) === 'failed',
      30_000,
    );
    expect((await svc.call('DELETE', `/api/jobs/${oldCanceled}`, key.key)).status).toBe(200);
    const stillQueued = await submit({ url: `${fx.url}/slow?ms=60000`, timeout: 60_000 });
    await until(
      'both deliveries to succeed',
      () =>
        (
          svc.db
            .prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE key_id = ? AND status = 'succeeded'`)
            .get(key.id) as { n: number }
        ).n === 2,
      30_000,
    );
    // A pending delivery (never sent: its next attempt is far off) is not finished, however old.
    svc.db
      .prepare(
        `INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, status, next_attempt_at, created_at)
      VALUES ('whd_pending', ?, 'msg_pending', 'job.succeeded', 'http://127.0.0.1:9/', '{}', 'pending', '2999-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z')`,
      )
      .run(key.id);
    const resultKey = (svc.db.prepare('SELECT result_key AS k FROM jobs WHERE id = ?').get(oldOk) as { k: string }).k;
    expect(existsSync(join(svc.dataDir, 'results', resultKey))).toBe(true);

    // Age them: the old ones one second past the cut, the young ones one second short of it.
    const now = new Date();
    const cut = now.getTime() - TTL_MS;
    const old = new Date(cut - 1000).toISOString();
    const young = new Date(cut + 1000).toISOString();
    const age = svc.db.prepare('UPDATE jobs SET finished_at = ? WHERE id = ?');
    for (const id of [oldOk, oldFailed, oldCanceled]) age.run(old, id);
    age.run(young, youngOk);
    const ageDelivery = svc.db.prepare(
      'UPDATE webhook_deliveries SET created_at = ?, last_attempt_at = ? WHERE job_id = ?',
    );
    ageDelivery.run(old, old, oldOk);
    ageDelivery.run(old, young, youngOk); // created long ago, but attempted (redelivered) within the term

    await svc.sweeper.sweep(now);

    for (const id of [oldOk, oldFailed, oldCanceled]) expect(statusOf(id)).toBeUndefined();
    expect(statusOf(youngOk)).toBe('succeeded');
    expect(statusOf(stillQueued)).toMatch(/queued|running/);
    expect(existsSync(join(svc.dataDir, 'results', resultKey))).toBe(false);
    expect(svc.db.prepare('SELECT COUNT(*) AS n FROM idempotency_keys WHERE job_id = ?').get(oldOk)).toEqual({ n: 0 });
    const deliveries = svc.db
      .prepare('SELECT job_id AS jobId, status FROM webhook_deliveries WHERE key_id = ? ORDER BY job_id')
      .all(key.id);
    expect(deliveries).toEqual(
      expect.arrayContaining([
        { jobId: youngOk, status: 'succeeded' },
        { jobId: null, status: 'pending' },
      ]),
    );
    expect(deliveries).toHaveLength(2);
    expect(
      svc.db
        .prepare(
          `SELECT COUNT(*) AS n FROM webhook_attempts WHERE delivery_id NOT IN (SELECT id FROM webhook_deliveries)`,
        )
        .get(),
    ).toEqual({ n: 0 });
    expect(
      svc.db
        .prepare(
          `SELECT COUNT(*) AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE d.job_id = ?`,
        )
        .get(youngOk),
    ).toEqual({ n: 1 });
    // The API agrees: the old job is gone, the young one is there.
    expect((await svc.call('GET', `/api/jobs/${oldOk}`, key.key)).status).toBe(404);
    expect((await svc.call('GET', `/api/jobs/${youngOk}`, key.key)).status).toBe(200);
    await svc.call('DELETE', `/api/jobs/${stillQueued}`, key.key);
  }, 120_000);

  it('works in batches: more old rows than one batch all go in one sweep', async () => {
    const key = svc.createKey('batches');
    const old = new Date(Date.now() - TTL_MS - 60_000).toISOString();
    const insert = svc.db
      .prepare(`INSERT INTO jobs (id, key_id, kind, status, request, base_url, created_at, finished_at)
      VALUES (?, ?, 'image', 'canceled', '{}', 'http://x', ?, ?)`);
    svc.db.transaction(() => {
      for (let i = 0; i < 1200; i++) insert.run(`job_batch_${i}`, key.id, old, old);
    })();
    await svc.sweeper.sweep(new Date());
    expect(svc.db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE key_id = ?').get(key.id)).toEqual({ n: 0 });
  });
});
