// A node whose clock runs 5 minutes fast (libfaketime, FAKETIME=+5m, preloaded into the built CLI and the
// Chromium it launches) beside a normal node on one PostgreSQL. Leases and ticks follow the database's
// clock (src/operations/database-clock.ts), so the fast node neither takes over a job the normal node
// holds and renews, nor captures a scheduled tick before the database's time reaches it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.js';
import { freePorts } from '../helpers/free-ports.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { describePostgres } from '../helpers/postgres.js';
import { sleep, until } from '../helpers/until.js';

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const SKEW_MS = 5 * 60_000;
const LEASE_MS = 3000;
const EVERY_FIVE_SECONDS = '*/5 * * * * *';
const SMALL = { viewport: { width: 320, height: 200 } };
const PAGE = '<!doctype html><body style="margin:0;background:#fff"><h1>ON TIME</h1></body>';
/** How early (ms) a capture may be queued and still count as on time: the error of reading the database's clock. */
const READING_ERROR_MS = 50;

/** The environment that makes a process (and its children) see this machine's clock plus 5 minutes. */
const fastClock = { LD_PRELOAD: LIBFAKETIME, FAKETIME: '+5m' };

describePostgres('clock skew: a node 5 minutes fast beside a normal one', () => {
  let cluster: Cluster;
  let fx: FixtureServer;
  let key: string;
  let normal: ClusterNode;
  let fast: ClusterNode;
  let fastDataDir: string;
  /** Pages held open until the test releases them: a job stays `running` (and renewed) meanwhile. */
  const held: (() => void)[] = [];

  beforeAll(async () => {
    if (!existsSync(LIBFAKETIME)) throw new Error(`${LIBFAKETIME} is missing: apt-get install faketime`);
    fx = await startFixtureServer();
    fx.route('/held', (_req, res) => {
      held.push(() => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    });
    fx.route('/watched', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    cluster = await startCluster({
      roles: ['all'],
      settings: {
        PAGEWATCH_JOBS_LEASE_MS: String(LEASE_MS),
        PAGEWATCH_MONITORS_MIN_INTERVAL_SECONDS: '1',
        PAGEWATCH_RENDER_SANDBOX: 'off', // runs as root here: keeps the warning out of the logs shown on failure
      },
    });
    normal = cluster.nodes[0]!;
    key = (await cluster.createKey('clock-skew')).key;
    // The fast node: a worker (job worker, schedules, dispatcher, sweeper), started by the test when it
    // needs it. In cluster.nodes, so cluster.close stops it too.
    const [port] = await freePorts(1);
    fastDataDir = mkdtempSync(join(tmpdir(), 'pagewatch-fast-'));
    const url = `http://127.0.0.1:${port}`;
    fast = {
      name: 'fast',
      role: 'worker',
      port: port!,
      url,
      env: {
        ...normal.env,
        ...fastClock,
        PAGEWATCH_ROLE: 'worker',
        PAGEWATCH_PORT: String(port),
        PAGEWATCH_DATA_DIR: fastDataDir,
      },
      call: (method, path) => fetch(`${url}${path}`, { method }),
    };
    cluster.nodes.push(fast);
    // The database's own record of when each capture job was queued, whatever clock the node that
    // queued it keeps (test instrumentation on the test's own database).
    await cluster.pg.query(`
      CREATE TABLE capture_queued (job_id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp());
      CREATE FUNCTION note_capture_queued() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO capture_queued (job_id) VALUES (NEW.id); RETURN NEW; END $$;
      CREATE TRIGGER capture_queued AFTER INSERT ON jobs FOR EACH ROW WHEN (NEW.kind = 'capture')
        EXECUTE FUNCTION note_capture_queued();`);
  }, 180_000);

  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await cluster?.close();
    await fx?.close();
    if (fastDataDir) rmSync(fastDataDir, { recursive: true, force: true });
  }, 90_000);

  it("Node's Date in a process run like the fast node is 5 minutes ahead", () => {
    const theirs = Number(
      execFileSync(process.execPath, ['-e', 'process.stdout.write(String(Date.now()))'], {
        env: { ...process.env, ...fastClock },
      }).toString(),
    );
    expect(Math.abs(theirs - Date.now() - SKEW_MS)).toBeLessThan(5000);
  });

  it('never takes over a job the normal node holds and renews', async () => {
    const res = await normal.call('POST', '/api/pdf', key, { url: `${fx.url}/held`, async: true, timeout: 120_000 });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const row = async () =>
      (
        await cluster.pg.query<{ status: string; attempts: number; lease_owner: string | null }>(
          'SELECT status, attempts, lease_owner FROM jobs WHERE id = $1',
          [id],
        )
      ).rows[0]!;
    await until('the normal node to be rendering the job', () => held.length === 1, 60_000, 50);
    const holder = await row();
    expect(holder).toMatchObject({ status: 'running', attempts: 1 });

    await cluster.start(fast);
    // Bound: 3 lease lengths with the fast node up. Its worker claims at start and every 200 ms
    // (jobs.pollIntervalMs), and on its clock every lease the normal node writes ran out 5 minutes ago, so
    // a node that trusted its own clock would take the job on its first claim; the normal node renews
    // every lease/3, so the lease never runs out on the database's clock.
    const seen: { status: string; attempts: number; lease_owner: string | null }[] = [];
    const watchUntil = Date.now() + 3 * LEASE_MS;
    while (Date.now() < watchUntil) {
      seen.push(await row());
      await sleep(100); // bound: a sample every 100 ms through the 3-lease window above, not a wait for a state
    }
    const takenOver = seen.filter((r) => r.attempts !== 1 || r.lease_owner !== holder.lease_owner);
    expect(takenOver[0], cluster.logsAbove(40).join('\n')).toBeUndefined();
    expect(held.length, 'the job was started again elsewhere').toBe(1);

    for (const release of held.splice(0)) release();
    await until('the job to succeed', async () => (await row()).status === 'succeeded', 60_000, 100);
    expect(await row()).toMatchObject({ status: 'succeeded', attempts: 1 });
    // The fast node knew its clock was off, and by how much.
    const warning = fast.process!.logLines.find((l) => String(l.msg).includes("this node's clock differs"));
    expect(Math.abs(Number(warning?.offsetMs) + SKEW_MS), JSON.stringify(warning)).toBeLessThan(5000);
  }, 120_000);

  it('never captures a scheduled tick before the database time reaches it', async () => {
    const res = await normal.call('POST', '/api/monitors', key, {
      url: `${fx.url}/watched`,
      capture: SMALL,
      schedule: EVERY_FIVE_SECONDS,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const captures = async () =>
      (
        await cluster.pg.query<{ scheduled_for: Date; queued_at: Date }>(
          `SELECT (j.request::json->>'scheduledFor')::timestamptz AS scheduled_for, q.at AS queued_at
           FROM jobs j JOIN capture_queued q ON q.job_id = j.id WHERE j.monitor_id = $1 ORDER BY 1`,
          [id],
        )
      ).rows;
    // Bound: 4 ticks of the schedule (20 s). A fast node that fired on its own clock would queue each
    // tick 5 minutes before its time, i.e. at once; the trigger records when each was queued.
    await until('4 ticks captured', async () => (await captures()).length >= 4, 60_000, 200);
    const paused = await normal.call('PATCH', `/api/monitors/${id}`, key, { paused: true });
    expect(paused.status).toBe(200);
    const early = (await captures())
      .map((c) => ({ ...c, earlyMs: c.scheduled_for.getTime() - c.queued_at.getTime() }))
      .filter((c) => c.earlyMs > READING_ERROR_MS);
    expect(early, cluster.logsAbove(40).join('\n')).toEqual([]);
  }, 120_000);
});
