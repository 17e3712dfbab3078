// Fair use of the queue (issue #10, finding 5): keys take turns — one key's 200 queued jobs delay
// another key's single job by at most one render per slot — and a monitor's capture jobs count toward
// the key's jobs.maxQueuedPerKey: at the cap a manual run is 429 queue_full and a schedule tick is
// skipped and counted. Real service, real Chromium (render.concurrency 2), real SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let fx: FixtureServer;
/** Held pages: each answers when the test releases it. */
const held: (() => void)[] = [];

beforeAll(async () => {
  fx = await startFixtureServer();
  fx.route('/held', (_req, res) => {
    held.push(() => {
      if (!res.writableEnded) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>released</p>');
    });
  });
});
afterAll(async () => {
  for (const release of held) release();
  await fx?.close();
});

const SETTINGS = {
  render: { concurrency: 2 },
  jobs: { pollIntervalMs: 200, maxQueuedPerKey: 1000 },
  monitors: { minIntervalSeconds: 1 },
  rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
};
const SMALL_HTML = '<!doctype html><body style="margin:0"><p>small</p></body>';

async function submit(svc: TestService, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await svc.call('POST', '/api/image', key, {
    viewport: { width: 200, height: 100 },
    ...body,
    async: true,
  });
  if (res.status !== 202) throw new Error(`submit → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function jobJson(svc: TestService, key: string, id: string): Promise<{ status: string; startedAt?: string }> {
  return (await (await svc.call('GET', `/api/jobs/${id}`, key)).json()) as { status: string; startedAt?: string };
}

describe('keys take turns', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(SETTINGS);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it("key B's one job starts before key A's 10th of 200, though A queued first", async () => {
    const a = svc.createKey('a');
    const b = svc.createKey('b');
    // A's first two jobs hold both render slots until released, so the other 198 are all queued
    // (not rendered one by one while the test is still submitting) when B's job arrives.
    const aJobs = [
      await submit(svc, a.key, { url: `${fx.url}/held`, timeout: 60_000 }),
      await submit(svc, a.key, { url: `${fx.url}/held`, timeout: 60_000 }),
    ];
    await until('both slots held', () => held.length === 2, 30_000);
    for (let i = 2; i < 200; i++) aJobs.push(await submit(svc, a.key, { html: SMALL_HTML }));
    const bJob = await submit(svc, b.key, { html: SMALL_HTML });
    for (const release of held.splice(0)) release();

    const bDone = await until(
      "B's job to succeed",
      async () => {
        const j = await jobJson(svc, b.key, bJob);
        return j.status === 'succeeded' && j;
      },
      120_000,
    );
    const tenth = await until(
      "A's 10th job to start",
      async () => {
        const j = await jobJson(svc, a.key, aJobs[9]!);
        return j.startedAt !== undefined && j;
      },
      120_000,
    );
    expect(bDone.startedAt! < tenth.startedAt!).toBe(true);
    // How many of A's jobs started before B's (the figure the README quotes): the two held ones, and
    // at most one more per slot.
    let before = 0;
    for (const id of aJobs.slice(0, 12)) {
      const j = await jobJson(svc, a.key, id);
      if (j.startedAt !== undefined && j.startedAt < bDone.startedAt!) before++;
    }
    console.log(`A's jobs started before B's: ${before}`);
    expect(before).toBeLessThanOrEqual(4);
    // Let A's queue drain quickly before the service stops.
    svc.db
      .prepare(`UPDATE jobs SET status = 'canceled', finished_at = ? WHERE status = 'queued'`)
      .run(new Date().toISOString());
  }, 240_000);
});

describe('capture jobs count toward jobs.maxQueuedPerKey', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ ...SETTINGS, jobs: { pollIntervalMs: 200, maxQueuedPerKey: 3 } });
  });
  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await svc?.close();
  });

  async function createMonitor(key: string, body: Record<string, unknown>): Promise<string> {
    const res = await svc.call('POST', '/api/monitors', key, {
      url: `${fx.url}/invoice`,
      capture: { viewport: { width: 320, height: 200 } },
      ...body,
    });
    if (res.status !== 201) throw new Error(`create monitor → ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  }

  it('at the cap: a manual run is 429 queue_full, a render submission too, and a schedule tick is skipped and counted', async () => {
    const key = svc.createKey('capped');
    const yearly = await createMonitor(key.key, { schedule: '0 0 1 1 *' });
    const fast = await createMonitor(key.key, { schedule: '*/1 * * * * *', paused: true });
    // Two held renders: 2 of 3 places taken.
    await submit(svc, key.key, { url: `${fx.url}/held`, timeout: 60_000 });
    await submit(svc, key.key, { url: `${fx.url}/held`, timeout: 60_000 });
    await until('both slots held', () => held.length === 2, 30_000);

    // At the edge: the third place goes to a manual capture (it waits for a slot).
    const run = await svc.call('POST', `/api/monitors/${yearly}/run`, key.key);
    expect(run.status).toBe(202);
    // Just over: every kind of new job is refused.
    const refused = await svc.call('POST', `/api/monitors/${fast}/run`, key.key);
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).code).toBe('queue_full');
    const render = await svc.call('POST', '/api/image', key.key, { html: SMALL_HTML, async: true });
    expect(render.status).toBe(429);

    // The fast monitor's ticks at the cap are skipped and counted; no capture job is queued for it.
    const resumed = await svc.call('PATCH', `/api/monitors/${fast}`, key.key, { paused: false });
    expect(resumed.status).toBe(200);
    await until(
      'two skipped ticks',
      async () => {
        const m = (await (await svc.call('GET', `/api/monitors/${fast}`, key.key)).json()) as { skippedRuns: number };
        return m.skippedRuns >= 2;
      },
      20_000,
    );
    expect(svc.db.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE monitor_id = ?`).get(fast)).toEqual({ n: 0 });
    await svc.call('PATCH', `/api/monitors/${fast}`, key.key, { paused: true });
  }, 120_000);
});
