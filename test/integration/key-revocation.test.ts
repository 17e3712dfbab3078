// Revoked means stopped (issue #10, finding 4): `pagewatch keys revoke`, run as its own process on the
// running service's database, stops everything the key set going — the render in progress (its slot
// is freed), queued jobs, the monitor on a fast schedule (no capture after), pending webhooks — and no
// worker claims a job of a revoked key, even one inserted after the revocation. Real service, real
// Chromium, real SQLite, the real CLI; pages and a failing webhook receiver on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { runKeysCli } from '../helpers/keys-cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { sleep, until } from '../helpers/until.js';

interface JobRow {
  id: string;
  status: string;
  attempts: number;
  started_at: string | null;
}

let svc: TestService;
let fx: FixtureServer;
let failing: WebhookReceiver;

beforeAll(async () => {
  fx = await startFixtureServer();
  failing = await startWebhookReceiver((res) => {
    res.writeHead(500).end();
  });
  svc = await startTestService({
    monitors: { minIntervalSeconds: 1 }, // another part enforces it; every-second schedules need it low
    render: { concurrency: 2 },
    jobs: { pollIntervalMs: 200 },
    // The first retry is far away, so the failed delivery stays pending until the revocation.
    webhooks: { retryScheduleMs: [600_000] },
    rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
  });
});
afterAll(async () => {
  await svc?.close();
  await failing?.close();
  await fx?.close();
});

const job = (id: string) =>
  svc.db.prepare('SELECT id, status, attempts, started_at FROM jobs WHERE id = ?').get(id) as JobRow;
const captureCount = (monitorId: string) =>
  (svc.db.prepare('SELECT COUNT(*) AS n FROM captures WHERE monitor_id = ?').get(monitorId) as { n: number }).n;

async function submit(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await svc.call('POST', '/api/pdf', key, { ...body, async: true });
  if (res.status !== 202) throw new Error(`submit → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

describe('pagewatch keys revoke, next to a running service', () => {
  it('stops the running render, cancels queued jobs, pauses the monitor for good and fails pending deliveries', async () => {
    const key = svc.createKey('revoked');
    const other = svc.createKey('other');

    // A pending delivery: a job whose webhook receiver answers 500 (retried in 10 minutes).
    const hooked = await submit(key.key, { html: '<p>hook</p>', webhookUrl: failing.url });
    await failing.waitForHits(1);
    const delivery = await until(
      'the delivery to be pending after its failed attempt',
      () =>
        svc.db
          .prepare(`SELECT id, status FROM webhook_deliveries WHERE job_id = ? AND attempts = 1 AND status = 'pending'`)
          .get(hooked) as { id: string } | undefined,
    );

    // A monitor capturing every second.
    const created = await svc.call('POST', '/api/monitors', key.key, {
      url: `${fx.url}/invoice`,
      schedule: '*/1 * * * * *',
      capture: { viewport: { width: 320, height: 200 } },
    });
    expect(created.status).toBe(201);
    const monitor = ((await created.json()) as { id: string }).id;
    await until('a scheduled capture', () => captureCount(monitor) >= 1, 30_000);

    // Two renders that would take two minutes hold both slots; two more jobs wait behind them.
    const slow = [
      await submit(key.key, { url: `${fx.url}/slow?ms=120000`, timeout: 120_000 }),
      await submit(key.key, { url: `${fx.url}/slow?ms=120000`, timeout: 120_000 }),
    ];
    await until(
      'both slow renders running',
      () => slow.every((id) => job(id).status === 'running') && svc.limiter.activeCount === 2,
    );
    const queued = [await submit(key.key, { html: '<p>q1</p>' }), await submit(key.key, { html: '<p>q2</p>' })];
    expect(queued.map((id) => job(id).status)).toEqual(['queued', 'queued']);

    const cli = await runKeysCli(svc.dataDir, ['revoke', key.id]);
    expect(cli).toMatchObject({ code: 0, stdout: `revoked ${key.id}\n` });

    // The CLI's transaction already says so …
    for (const id of [...slow, ...queued]) expect(job(id).status).toBe('canceled');
    expect(svc.db.prepare('SELECT paused, next_run_at AS next FROM monitors WHERE id = ?').get(monitor)).toEqual({
      paused: 1,
      next: null,
    });
    expect(
      svc.db.prepare('SELECT status, last_error AS error FROM webhook_deliveries WHERE id = ?').get(delivery.id),
    ).toEqual({ status: 'failed', error: 'not sent: the API key was revoked' });
    // … and the service acts on it by itself: the renders stop and free their slots well before
    // their two minutes, the worker holds nothing, the cron task is gone.
    await until(
      'the slow renders to stop',
      () => svc.limiter.activeCount === 0 && svc.worker.runningCount === 0,
      20_000,
    );
    await until('the monitor to be unscheduled', () => svc.scheduler.scheduledCount === 0, 10_000);
    expect((await svc.call('GET', '/api/jobs', key.key)).status).toBe(401);

    // Nothing more is captured. The task is gone, so nothing could queue a capture; we still watch for
    // 3 s, three periods of the every-second schedule that captured before the revocation, plus a
    // poll of the worker (200 ms) for any capture job that was already queued.
    const captures = captureCount(monitor);
    const hits = failing.hits.length;
    await sleep(3000); // bound: three schedule periods and a worker poll, as said above
    expect(captureCount(monitor)).toBe(captures);
    expect(
      svc.db.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND status IN ('queued', 'running')`).get(key.id),
    ).toEqual({ n: 0 });
    expect(failing.hits.length).toBe(hits);

    // The freed slots serve other keys.
    const next = await submit(other.key, { html: '<p>other</p>' });
    await until("the other key's job to succeed", () => job(next).status === 'succeeded', 30_000);
  }, 120_000);

  it('a job inserted for a revoked key (by an instance that had not heard of it) is never claimed', async () => {
    const key = svc.createKey('late');
    expect((await runKeysCli(svc.dataDir, ['revoke', key.id])).code).toBe(0);
    svc.db
      .prepare(
        `INSERT INTO jobs (id, key_id, kind, status, request, base_url, created_at)
      VALUES ('job_straggler', ?, 'pdf', 'queued', '{"html":"<p>x</p>"}', 'http://x', ?)`,
      )
      .run(key.id, new Date().toISOString());
    svc.worker.wake();
    // The next claim pass cancels it instead of claiming it: no try was made, it never started.
    await until('the straggler to be canceled', () => job('job_straggler').status === 'canceled', 10_000);
    expect(job('job_straggler')).toMatchObject({ attempts: 0, started_at: null });
  });

  it('a delivery recorded for a revoked key (by an instance that had not heard of it) is never sent', async () => {
    const key = svc.createKey('late-hook');
    const receiver = await startWebhookReceiver();
    try {
      expect((await runKeysCli(svc.dataDir, ['revoke', key.id])).code).toBe(0);
      const now = new Date().toISOString();
      svc.db
        .prepare(
          `INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, status, next_attempt_at, created_at)
        VALUES ('whd_straggler', ?, 'msg_straggler', 'job.succeeded', ?, '{}', 'pending', ?, ?)`,
        )
        .run(key.id, receiver.url, now, now);
      svc.dispatcher.wake();
      // The dispatcher's next look at the outbox fails it unsent; the receiver was never called.
      await until(
        'the straggler delivery to be failed',
        () =>
          (
            svc.db.prepare(`SELECT status FROM webhook_deliveries WHERE id = 'whd_straggler'`).get() as {
              status: string;
            }
          ).status === 'failed',
        10_000,
      );
      expect(
        svc.db.prepare(`SELECT attempts, last_error AS error FROM webhook_deliveries WHERE id = 'whd_straggler'`).get(),
      ).toEqual({ attempts: 0, error: 'not sent: the API key was revoked' });
      expect(receiver.hits).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('revoking a key that is already revoked or does not exist says so (exit 1), as before', async () => {
    const key = svc.createKey('twice');
    expect(await runKeysCli(svc.dataDir, ['revoke', key.id])).toMatchObject({ code: 0 });
    expect(await runKeysCli(svc.dataDir, ['revoke', key.id])).toMatchObject({
      code: 1,
      stderr: `no active key with id ${key.id}\n`,
    });
    expect(await runKeysCli(svc.dataDir, ['revoke', 'key_missing'])).toMatchObject({ code: 1 });
  });
});
