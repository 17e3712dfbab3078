// Monitors on three nodes over one PostgreSQL (issue #13). Every node schedules every monitor, and the
// `last_tick_at` claim lets exactly one of them take each tick: 5 monitors on a 2-second schedule for 20 s
// give one capture job per monitor and tick, never two. And after all nodes stop and a monitor's next run
// passes, starting them all again (together) queues exactly one catch-up capture, not one per node.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../../helpers/cluster.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { describePostgres } from '../../helpers/postgres.js';
import { sleep, until } from '../../helpers/until.js';

const EVERY_TWO_SECONDS = '*/2 * * * * *';
const YEARLY = '0 0 1 1 *';
const SMALL = { viewport: { width: 320, height: 200 } };
const PAGE = '<!doctype html><body style="margin:0;background:#fff"><h1>CLUSTER MONITOR</h1></body>';

describePostgres('multi-node: monitor ticks and catch-up', () => {
  let cluster: Cluster;
  let fx: FixtureServer;
  let key: string;

  beforeAll(async () => {
    fx = await startFixtureServer();
    fx.route('/watched', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    cluster = await startCluster({ settings: { PAGEWATCH_MONITORS_MIN_INTERVAL_SECONDS: '1' } });
    key = (await cluster.createKey('monitors')).key;
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await fx?.close();
  }, 60_000);

  async function createMonitor(node: ClusterNode, schedule: string): Promise<{ id: string; createdAt: string }> {
    const res = await node.call('POST', '/api/monitors', key, { url: `${fx.url}/watched`, capture: SMALL, schedule });
    if (res.status !== 201) throw new Error(`POST /api/monitors → ${res.status}: ${await res.text()}`);
    return (await res.json()) as { id: string; createdAt: string };
  }

  const captureJobsActive = async () =>
    (
      await cluster.pg.query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM jobs WHERE kind = 'capture' AND status IN ('queued', 'running')",
      )
    ).rows[0]!.n;

  it('5 monitors every 2 s for 20 s on 3 nodes: each tick is captured once, never twice', async () => {
    const { nodes, pg } = cluster;
    const monitors = await Promise.all([0, 1, 2, 3, 4].map((i) => createMonitor(nodes[i % 3]!, EVERY_TWO_SECONDS)));
    const from = Date.now();
    await sleep(20_000); // bound: the observation window itself (10 ticks per monitor), no condition to wait on
    const to = Date.now();
    for (const m of monitors) {
      const res = await nodes[0]!.call('PATCH', `/api/monitors/${m.id}`, key, { paused: true });
      expect(res.status, `PATCH → ${await res.text()}\n${cluster.logsAbove(50).join('\n')}`).toBe(200);
    }
    await until('the last capture jobs to finish', async () => (await captureJobsActive()) === 0, 30_000, 200);

    const rows = (
      await pg.query<{ monitor_id: string; at: string; n: number; succeeded: number }>(
        `SELECT monitor_id, request::json->>'scheduledFor' AS at, COUNT(*)::int AS n,
           COUNT(*) FILTER (WHERE status = 'succeeded')::int AS succeeded
         FROM jobs WHERE kind = 'capture' GROUP BY 1, 2 ORDER BY 1, 2`,
      )
    ).rows;
    const skipped = new Map(
      (await pg.query<{ id: string; skipped_runs: number }>('SELECT id, skipped_runs FROM monitors')).rows.map((r) => [
        r.id,
        r.skipped_runs,
      ]),
    );
    let missingTotal = 0;
    let expectedTotal = 0;
    // Never two jobs for one monitor's tick.
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    for (const m of monitors) {
      const ticks = new Set(rows.filter((r) => r.monitor_id === m.id).map((r) => r.at));
      // Every even second well inside the window (the first one after creation, the last before the pause).
      const expected: string[] = [];
      for (let t = Math.ceil((from + 1000) / 2000) * 2000; t < to - 1000; t += 2000)
        expected.push(new Date(t).toISOString());
      const missing = expected.filter((at) => !ticks.has(at));
      // No tick lost: one that found the monitor's previous capture still queued or running (three render
      // slots for 2.5 captures a second, on a loaded machine) is skipped and counted, never taken twice.
      const why = () => `${m.id} missed ${missing.join(' ')}; logs:\n${cluster.logsAbove(40).join('\n')}`;
      expect(missing.length, why()).toBeLessThanOrEqual(skipped.get(m.id)!);
      missingTotal += missing.length;
      expectedTotal += expected.length;
    }
    // Each capture job recorded one capture.
    const captures = (
      await pg.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM captures WHERE reason = 'schedule'")
    ).rows[0]!.n;
    expect(captures).toBe(rows.reduce((sum, r) => sum + r.succeeded, 0));
    // The cluster keeps up with most of the window (a schedule nobody ran would lose every tick).
    expect(expectedTotal - missingTotal).toBeGreaterThanOrEqual(expectedTotal / 2);
    const timing = (
      await pg.query<{ wait: number; run: number }>(
        `SELECT AVG(EXTRACT(EPOCH FROM (started_at::timestamptz - created_at::timestamptz)))::float AS wait,
           AVG(EXTRACT(EPOCH FROM (finished_at::timestamptz - started_at::timestamptz)))::float AS run
         FROM jobs WHERE kind = 'capture'`,
      )
    ).rows[0]!;
    console.log(
      `ticks: ${rows.length} capture jobs, ${expectedTotal - missingTotal}/${expectedTotal} ticks of the window ` +
        `captured, the rest skipped (previous capture unfinished); mean queue wait ${timing.wait.toFixed(2)} s, ` +
        `mean capture ${timing.run.toFixed(2)} s`,
    );
  }, 120_000);

  it('every node restarted after a missed run: exactly one catch-up capture', async () => {
    const { nodes, pg } = cluster;
    const m = await createMonitor(nodes[2]!, YEARLY);
    await Promise.all(nodes.map((n) => cluster.stop(n)));
    // While every node is down its next run passes (set in the database: a yearly run cannot be waited for).
    const missed = new Date(Date.now() - 10 * 60_000).toISOString();
    expect((await pg.query('UPDATE monitors SET next_run_at = $1 WHERE id = $2', [missed, m.id])).rowCount).toBe(1);

    // All three start together, as a restarted stack does; each queues its catch-ups before it listens.
    await Promise.all(nodes.map((n) => cluster.start(n)));
    const catchUps = async () =>
      (
        await pg.query<{ n: number; succeeded: number }>(
          `SELECT COUNT(*)::int AS n, COUNT(*) FILTER (WHERE status = 'succeeded')::int AS succeeded
           FROM jobs WHERE monitor_id = $1 AND request::json->>'reason' = 'catch-up'`,
          [m.id],
        )
      ).rows[0]!;
    await until('the catch-up capture to succeed', async () => (await catchUps()).succeeded >= 1, 60_000, 200);
    const jobs = await pg.query<{ status: string; created_at: string; lease_owner: string | null }>(
      `SELECT status, created_at, lease_owner FROM jobs
       WHERE monitor_id = $1 AND request::json->>'reason' = 'catch-up'`,
      [m.id],
    );
    expect(jobs.rows, 'the catch-up jobs').toHaveLength(1);
    expect(await catchUps()).toEqual({ n: 1, succeeded: 1 });
    const captures = (
      await pg.query<{ reason: string }>('SELECT reason FROM captures WHERE monitor_id = $1', [m.id])
    ).rows.map((r) => r.reason);
    expect(captures).toEqual(['catch-up']);
    const next = (await pg.query<{ next: string }>('SELECT next_run_at AS next FROM monitors WHERE id = $1', [m.id]))
      .rows[0]!.next;
    expect(Date.parse(next)).toBeGreaterThan(Date.now());
  }, 180_000);
});
