// Monitors on a schedule (issue #5, "Scheduling"): a 6-field cron really fires and keeps the monitor's
// lastRunAt/nextRunAt/lastStatus current; pause, resume, a schedule change and a delete take effect at
// once; a tick that finds the previous capture unfinished is skipped and counted, never overlapping it;
// and across restarts on one data directory: schedules come back from SQLite, a run missed while the
// service was down gets exactly one catch-up capture, and a capture job a killed process left `running`
// is taken up again. Real service, real Chromium, real SQLite; pages from a local fixture server.
// What must NOT happen (no tick while paused, after a delete or a stop; one catch-up, not one per
// missed tick) is shown on fake time in test/unit/monitor-schedule.test.ts, where it is exact; here
// the service is shown to unschedule (scheduledCount) and every wait is on a condition.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServiceOn, type DurableService } from '../helpers/durability-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

interface MonitorJson {
  id: string;
  schedule: string;
  paused: boolean;
  lastRunAt?: string;
  nextRunAt?: string;
  lastStatus?: 'baseline' | 'unchanged' | 'changed' | 'failed';
  skippedRuns: number;
}
interface CaptureJson {
  id: string;
  monitorId: string;
  status: 'succeeded' | 'failed';
  reason: 'schedule' | 'manual' | 'catch-up';
  takenAt: string;
  durationMs: number;
  changed: boolean;
  baselineId: string | null;
  error?: { code: string; message: string };
}

/** What these tests need of a running service: the API and its database. */
type Api = Pick<TestService, 'call' | 'db'>;

const EVERY_SECOND = '*/1 * * * * *';
const YEARLY = '0 0 1 1 *';
/** Small captures keep every render short. */
const SMALL = { viewport: { width: 320, height: 200 } };
const SETTINGS = {
  jobs: { pollIntervalMs: 100 },
  rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll often
  monitors: { minIntervalSeconds: 1 }, // EVERY_SECOND: the tests watch real ticks
};
/** Restart tests: a stop never waits long for a render in flight. */
const DURABLE_SETTINGS = { ...SETTINGS, shutdownGraceMs: 5000 };

const PAGE = '<!doctype html><body style="margin:0;background:#fff"><h1 style="color:#234">SCHEDULED PAGE</h1></body>';

let fx: FixtureServer;

beforeAll(async () => {
  fx = await startFixtureServer();
  fx.route('/watched', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
});
afterAll(async () => {
  await fx?.close();
});

async function createMonitor(api: Api, key: string, body: Record<string, unknown>): Promise<MonitorJson> {
  const res = await api.call('POST', '/api/monitors', key, { url: `${fx.url}/watched`, capture: SMALL, ...body });
  if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
  return (await res.json()) as MonitorJson;
}

async function getMonitor(api: Api, key: string, id: string): Promise<MonitorJson> {
  const res = await api.call('GET', `/api/monitors/${id}`, key);
  if (res.status !== 200) throw new Error(`GET /api/monitors/${id} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as MonitorJson;
}

async function patchMonitor(api: Api, key: string, id: string, patch: Record<string, unknown>): Promise<MonitorJson> {
  const res = await api.call('PATCH', `/api/monitors/${id}`, key, patch);
  if (res.status !== 200) throw new Error(`PATCH /api/monitors/${id} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as MonitorJson;
}

/** Every capture of the monitor, oldest first. */
async function capturesOf(api: Api, key: string, id: string): Promise<CaptureJson[]> {
  const res = await api.call('GET', `/api/monitors/${id}/captures?limit=100`, key);
  if (res.status !== 200) throw new Error(`GET captures of ${id} → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { items: CaptureJson[] }).items.reverse();
}

/** Waits until the monitor has at least `n` captures that pass `filter`; returns them (oldest first). */
async function waitForCaptures(
  api: Api,
  key: string,
  id: string,
  n: number,
  filter: (c: CaptureJson) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<CaptureJson[]> {
  return until(
    `${n} matching captures of ${id}`,
    async () => {
      const list = (await capturesOf(api, key, id)).filter(filter);
      return list.length >= n && list;
    },
    timeoutMs,
    100,
  );
}

const jobCount = (api: Api, monitorId: string) =>
  (api.db.prepare('SELECT COUNT(*) n FROM jobs WHERE monitor_id = ?').get(monitorId) as { n: number }).n;
const activeJobCount = (api: Api, monitorId: string) =>
  (
    api.db
      .prepare(
        `SELECT COUNT(*) n FROM jobs WHERE monitor_id = ? AND kind = 'capture' AND status IN ('queued', 'running')`,
      )
      .get(monitorId) as { n: number }
  ).n;

const catchUpJobs = (api: Api, monitorId: string) =>
  (
    api.db
      .prepare(`SELECT COUNT(*) n FROM jobs WHERE monitor_id = ? AND json_extract(request, '$.reason') = 'catch-up'`)
      .get(monitorId) as { n: number }
  ).n;

/** The next 1 January 00:00 UTC: when `0 0 1 1 *` (UTC) fires next. */
const nextNewYear = () => new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1)).toISOString();

describe('schedules in a running service', () => {
  let svc: TestService;
  let key: string;
  const created: string[] = [];

  beforeAll(async () => {
    svc = await startTestService(SETTINGS);
    key = svc.createKey('schedule').key;
  });
  afterEach(async () => {
    // A schedule left running would take render slots from the next test.
    for (const id of created.splice(0)) await svc.call('DELETE', `/api/monitors/${id}`, key);
  });
  afterAll(async () => {
    await svc?.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const m = await createMonitor(svc, key, body);
    created.push(m.id);
    return m;
  };

  it('a 6-field cron fires every second: ordered schedule captures, and lastRunAt/nextRunAt/lastStatus kept current', async () => {
    const m = await create({ schedule: EVERY_SECOND });
    expect(m.schedule).toBe(EVERY_SECOND);
    expect(m.paused).toBe(false);
    expect(m.nextRunAt).toEqual(expect.any(String));

    const caps = await waitForCaptures(svc, key, m.id, 3);
    for (const c of caps) expect(c).toMatchObject({ monitorId: m.id, status: 'succeeded', reason: 'schedule' });
    for (let i = 1; i < caps.length; i++)
      expect(Date.parse(caps[i]!.takenAt)).toBeGreaterThanOrEqual(Date.parse(caps[i - 1]!.takenAt));
    // The first is the baseline; the static page then compares unchanged with the one before.
    expect(caps[0]).toMatchObject({ baselineId: null, changed: false });
    for (let i = 1; i < caps.length; i++)
      expect(caps[i]).toMatchObject({ baselineId: caps[i - 1]!.id, changed: false });

    // nextRunAt is the coming tick: in the future and at most a second or two away. (Read at the very
    // moment of a tick it may still name the tick being handled, so read again until it is current.)
    const current = await until(
      'the monitor to show its coming run',
      async () => {
        const before = Date.now();
        const view = await getMonitor(svc, key, m.id);
        const next = view.nextRunAt ? Date.parse(view.nextRunAt) : NaN;
        return next > before && next <= Date.now() + 2000 && view;
      },
      10_000,
      100,
    );
    expect(current.lastStatus).toBe('unchanged');
    expect(Date.parse(current.lastRunAt!)).toBeGreaterThanOrEqual(Date.parse(caps[caps.length - 1]!.takenAt));

    // ...and both keep moving with the schedule.
    const later = await until(
      'lastRunAt and nextRunAt to move on',
      async () => {
        const view = await getMonitor(svc, key, m.id);
        return view.lastRunAt! > current.lastRunAt! && view.nextRunAt! > current.nextRunAt! && view;
      },
      15_000,
      200,
    );
    expect(later.lastStatus).toBe('unchanged');
  });

  it('pause unschedules at once (the capture in flight may finish), resume schedules again', async () => {
    const m = await create({ schedule: EVERY_SECOND });
    await waitForCaptures(svc, key, m.id, 1);
    const scheduled = svc.scheduler.scheduledCount;

    const paused = await patchMonitor(svc, key, m.id, { paused: true });
    expect(paused.paused).toBe(true);
    expect(paused.nextRunAt).toBeUndefined(); // a paused monitor has no next run
    expect(svc.scheduler.scheduledCount).toBe(scheduled - 1);

    // At most one capture was in flight when it was paused; it finishes. (That no tick comes while
    // unscheduled is shown on fake time in test/unit/monitor-schedule.test.ts.)
    await until('the capture in flight to finish', () => activeJobCount(svc, m.id) === 0, 20_000);
    expect((await getMonitor(svc, key, m.id)).paused).toBe(true);

    const resumedAt = Date.now();
    const resumed = await patchMonitor(svc, key, m.id, { paused: false });
    expect(resumed.paused).toBe(false);
    expect(resumed.nextRunAt).toEqual(expect.any(String));
    expect(svc.scheduler.scheduledCount).toBe(scheduled);
    const after = await waitForCaptures(
      svc,
      key,
      m.id,
      2,
      (c) => c.reason === 'schedule' && Date.parse(c.takenAt) >= resumedAt,
    );
    for (const c of after) expect(c.status).toBe('succeeded');
  });

  it('changing the schedule reschedules at once: yearly → every second starts captures without a restart', async () => {
    const m = await create({ schedule: YEARLY });
    expect(m.nextRunAt).toBe(nextNewYear());
    expect(await capturesOf(svc, key, m.id)).toEqual([]);
    expect(jobCount(svc, m.id)).toBe(0);

    const before = Date.now();
    const updated = await patchMonitor(svc, key, m.id, { schedule: EVERY_SECOND });
    expect(updated.schedule).toBe(EVERY_SECOND);
    const next = Date.parse(updated.nextRunAt!);
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(Date.now() + 2000);

    const caps = await waitForCaptures(svc, key, m.id, 2);
    for (const c of caps) expect(c).toMatchObject({ status: 'succeeded', reason: 'schedule' });
    expect((await getMonitor(svc, key, m.id)).schedule).toBe(EVERY_SECOND);
  });

  it('delete unschedules at once and cancels the pending capture', async () => {
    const m = await create({ schedule: EVERY_SECOND });
    await waitForCaptures(svc, key, m.id, 1);
    const scheduled = svc.scheduler.scheduledCount;

    expect((await svc.call('DELETE', `/api/monitors/${m.id}`, key)).status).toBe(204);
    created.splice(created.indexOf(m.id), 1);
    expect(svc.scheduler.scheduledCount).toBe(scheduled - 1);
    expect(activeJobCount(svc, m.id)).toBe(0); // a pending capture was canceled with it

    expect(jobCount(svc, m.id)).toBeGreaterThanOrEqual(1);
    // Unscheduled, it ticks no more (fake time: test/unit/monitor-schedule.test.ts); and a tick already
    // under way finds the monitor gone and queues nothing (monitors store contract: claimTick).
    expect((await svc.call('GET', `/api/monitors/${m.id}`, key)).status).toBe(404);
  });

  it('no overlap: with a page that takes ~3 s, ticks that find the capture unfinished are skipped and counted', async () => {
    const m = await create({ url: `${fx.url}/slow?ms=3000`, schedule: EVERY_SECOND, diff: { confirm: false } });

    // Sample the jobs table every 25 ms all along: never two queued/running captures of the monitor at
    // once, over at least 8 s (eight ticks, two or three slow captures) and until two captures are in.
    let maxActive = 0;
    const startedAt = Date.now();
    const caps = await until(
      'two captures of the slow page, 8 s after the start',
      async () => {
        maxActive = Math.max(maxActive, activeJobCount(svc, m.id));
        if (Date.now() - startedAt < 8000) return false;
        const list = await capturesOf(svc, key, m.id);
        return list.length >= 2 && list;
      },
      40_000,
      25,
    );
    expect(maxActive).toBe(1);

    for (const c of caps) expect(c).toMatchObject({ status: 'succeeded', reason: 'schedule' });
    for (const c of caps) expect(c.durationMs).toBeGreaterThanOrEqual(2500); // the page really was slow
    // Each capture started only after the one before had finished.
    for (let i = 1; i < caps.length; i++) {
      const prev = caps[i - 1]!;
      expect(Date.parse(caps[i]!.takenAt)).toBeGreaterThanOrEqual(Date.parse(prev.takenAt) + prev.durationMs - 100);
    }
    expect((await getMonitor(svc, key, m.id)).skippedRuns).toBeGreaterThan(0);
  });
});

describe('schedules across restarts (one data directory, services started on it in turn)', () => {
  const dirs: string[] = [];
  const running = new Set<DurableService>();

  async function start(dataDir: string): Promise<DurableService> {
    const s = await startServiceOn(dataDir, DURABLE_SETTINGS);
    running.add(s);
    return s;
  }
  async function stop(s: DurableService): Promise<void> {
    await s.stop();
    running.delete(s);
  }
  function newDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-schedule-'));
    dirs.push(dir);
    return dir;
  }
  /** Write to the stopped service's database, as an operator (or a killed process) would leave it. */
  function withDb(dataDir: string, fn: (db: Database.Database) => void): void {
    const db = new Database(join(dataDir, 'pagewatch.db'));
    try {
      fn(db);
    } finally {
      db.close();
    }
  }

  afterEach(async () => {
    for (const s of [...running]) await stop(s).catch(() => undefined);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a restart schedules the monitors from the database: captures resume without any API call', async () => {
    const dir = newDir();
    const first = await start(dir);
    const key = first.createKey('restart').key;
    const m = await createMonitor(first, key, { schedule: EVERY_SECOND });
    await waitForCaptures(first, key, m.id, 1, (c) => c.reason === 'schedule');
    await stop(first);

    const restartedAt = Date.now();
    const second = await start(dir);
    expect(second.scheduler.scheduledCount).toBe(1);
    const resumed = await waitForCaptures(
      second,
      key,
      m.id,
      2,
      (c) => c.reason === 'schedule' && Date.parse(c.takenAt) >= restartedAt,
    );
    for (const c of resumed) expect(c.status).toBe('succeeded');
    const view = await getMonitor(second, key, m.id);
    expect(Date.parse(view.nextRunAt!)).toBeGreaterThan(restartedAt);
  });

  it('runs missed while stopped get exactly one catch-up capture; a restart without missed runs gets none', async () => {
    const dir = newDir();
    const first = await start(dir);
    const key = first.createKey('catch-up').key;
    const m = await createMonitor(first, key, { schedule: YEARLY });
    expect(m.nextRunAt).toBe(nextNewYear());
    await stop(first);

    // Down for a while: the stored next run has passed (many ticks' worth would have, on a busier schedule).
    const missed = new Date(Date.now() - 10 * 60_000).toISOString();
    withDb(dir, (db) => {
      expect(db.prepare('UPDATE monitors SET next_run_at = ? WHERE id = ?').run(missed, m.id).changes).toBe(1);
    });

    const second = await start(dir);
    // Catch-ups are queued only while the scheduler starts, which is over once the service answers.
    expect(catchUpJobs(second, m.id)).toBe(1); // one catch-up, not one per missed run
    const [catchUp] = await waitForCaptures(second, key, m.id, 1);
    expect(catchUp).toMatchObject({ status: 'succeeded', reason: 'catch-up', baselineId: null });
    expect(jobCount(second, m.id)).toBe(1);
    const view = await getMonitor(second, key, m.id);
    expect(view.nextRunAt).toBe(nextNewYear());
    expect(Date.parse(view.lastRunAt!)).toBeGreaterThanOrEqual(Date.parse(catchUp!.takenAt));
    expect(view.lastStatus).toBe('baseline');
    await stop(second);
    withDb(dir, (db) => {
      const row = db.prepare('SELECT next_run_at AS next FROM monitors WHERE id = ?').get(m.id) as { next: string };
      expect(Date.parse(row.next)).toBeGreaterThan(Date.now());
    });

    // Nothing was missed this time: no catch-up is queued at start, and none is captured.
    const third = await start(dir);
    expect(catchUpJobs(third, m.id)).toBe(1); // the one from the second start: none queued at this one
    expect(jobCount(third, m.id)).toBe(1);
    expect((await capturesOf(third, key, m.id)).map((c) => c.id)).toEqual([catchUp!.id]);
  });

  it('a capture job a killed process left running with an expired lease is taken up at start and recorded', async () => {
    const dir = newDir();
    const first = await start(dir);
    const issued = first.createKey('crash');
    const m = await createMonitor(first, issued.key, { schedule: YEARLY });
    const baseUrl = first.url;
    await stop(first);

    const jobId = `job_${randomBytes(10).toString('hex')}`;
    const past = new Date(Date.now() - 60_000).toISOString();
    withDb(dir, (db) => {
      db.prepare(
        `INSERT INTO jobs (id, key_id, kind, status, request, base_url, monitor_id, attempts, lease_owner, lease_expires_at, created_at)
        VALUES (?, ?, 'capture', 'running', ?, ?, ?, 1, 'dead', ?, ?)`,
      ).run(jobId, issued.id, JSON.stringify({ monitorId: m.id, reason: 'manual' }), baseUrl, m.id, past, past);
    });

    const second = await start(dir);
    const [capture] = await waitForCaptures(second, issued.key, m.id, 1);
    expect(capture).toMatchObject({ monitorId: m.id, status: 'succeeded', reason: 'manual', baselineId: null });
    const image = await second.call('GET', `/api/captures/${capture!.id}/image`, issued.key);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(
      second.db.prepare('SELECT status, attempts, lease_owner AS owner FROM jobs WHERE id = ?').get(jobId),
    ).toEqual({ status: 'succeeded', attempts: 2, owner: null });
    // Taken up once: the one job is finished (attempts 2: the dead process's and this one), and a
    // yearly monitor queues no other, so no second capture can come.
    expect(jobCount(second, m.id)).toBe(1);
    expect(await capturesOf(second, issued.key, m.id)).toHaveLength(1);
  });
});
