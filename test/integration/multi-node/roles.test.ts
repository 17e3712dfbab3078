// Roles on one PostgreSQL (issue #13): two `api` nodes and one `worker`. The api nodes take requests but
// claim no job and schedule no monitor: jobs submitted to them are rendered by the worker (its metrics
// count them, theirs count none, and one lease owner claimed them all); the worker answers /health,
// /ready and /metrics and 404 to the API; /api/status lists all three nodes with their roles. A monitor
// created, paused, resumed or deleted through an api node is scheduled or unscheduled on the worker (the
// only node that ticks) within 2 s: seen in the capture jobs it queues.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../../helpers/cluster.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { describePostgres } from '../../helpers/postgres.js';
import { parsePrometheus } from '../../helpers/prometheus.js';
import { errorOf } from '../../helpers/service.js';
import { sleep, until } from '../../helpers/until.js';

const EVERY_SECOND = '*/1 * * * * *';
const SMALL = { viewport: { width: 320, height: 200 } };

/** Successful PDF renders this node has done (synchronous or as jobs). */
async function pdfRenders(node: ClusterNode): Promise<number> {
  const res = await node.call('GET', '/metrics');
  expect(res.status).toBe(200);
  const { samples } = parsePrometheus(await res.text());
  const s = samples.find(
    (x) => x.name === 'pagewatch_renders_total' && x.labels.kind === 'pdf' && x.labels.outcome === 'ok',
  );
  return s?.value ?? 0;
}

describePostgres('multi-node: roles', () => {
  let cluster: Cluster;
  let fx: FixtureServer;
  let key: string;
  let api: ClusterNode;
  let worker: ClusterNode;
  let api2: ClusterNode;

  beforeAll(async () => {
    fx = await startFixtureServer();
    cluster = await startCluster({
      roles: ['api', 'worker', 'api'],
      settings: { PAGEWATCH_MONITORS_MIN_INTERVAL_SECONDS: '1' },
    });
    [api, worker, api2] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    key = (await cluster.createKey('roles')).key;
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await fx?.close();
  }, 60_000);

  it('jobs submitted to api nodes are claimed and rendered by the worker only', async () => {
    const owners = new Set<string>();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const node = i % 2 ? api2 : api;
      const res = await node.call('POST', '/api/pdf', key, { html: `<h1>ROLE JOB ${i}</h1>`, delay: 200, async: true });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { id: string }).id);
    }
    await until(
      'every job to succeed',
      async () => {
        const rows = (
          await cluster.pg.query<{ status: string; lease_owner: string | null }>(
            'SELECT status, lease_owner FROM jobs WHERE id = ANY($1)',
            [ids],
          )
        ).rows;
        for (const r of rows) if (r.status === 'running' && r.lease_owner) owners.add(r.lease_owner);
        return rows.every((r) => r.status === 'succeeded');
      },
      60_000,
      20,
    );
    expect(owners.size).toBe(1); // one claimer, seen while it rendered: the worker's
    expect(await pdfRenders(worker)).toBeGreaterThanOrEqual(6);
    expect(await pdfRenders(api)).toBe(0);
    expect(await pdfRenders(api2)).toBe(0);
  }, 90_000);

  it('a worker answers /health, /ready and /metrics, and 404 to the API', async () => {
    for (const path of ['/health', '/ready', '/metrics']) expect((await worker.call('GET', path)).status).toBe(200);
    const pdf = await worker.call('POST', '/api/pdf', key, { html: '<h1>no</h1>' });
    expect(pdf.status).toBe(404);
    expect((await errorOf(pdf)).code).toBe('not_found');
    expect((await worker.call('GET', '/api/jobs', key)).status).toBe(404);
  });

  it('/api/status on every api node lists the three nodes with their roles', async () => {
    for (const node of [api, api2]) {
      const res = await node.call('GET', '/api/status');
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        node: { id: string; role: string };
        cluster: { nodes: { id: string; role: string; alive: boolean }[] };
      };
      expect(body.node.role).toBe('api');
      expect(body.cluster.nodes.map((n) => n.role).sort()).toEqual(['api', 'api', 'worker']);
      expect(body.cluster.nodes.every((n) => n.alive)).toBe(true);
      expect(body.cluster.nodes.map((n) => n.id)).toContain(body.node.id);
    }
  });

  it('a monitor changed through an api node is (un)scheduled on the worker within 2 s', async () => {
    fx.route('/watched', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>ROLE MONITOR</h1>');
    });
    const capturesAfter = async (monitorId: string, iso: string) =>
      (
        await cluster.pg.query<{ n: number }>(
          "SELECT COUNT(*)::int AS n FROM jobs WHERE kind = 'capture' AND monitor_id = $1 AND created_at > $2",
          [monitorId, iso],
        )
      ).rows[0]!.n;
    // Scheduled within 2 s, and the every-second schedule ticks within 1 s more.
    const queuedWithin3s = (monitorId: string, since: string) =>
      until(`a capture of ${monitorId} after ${since}`, async () => (await capturesAfter(monitorId, since)) > 0, 3000);
    const unscheduledWithin2s = async (monitorId: string, at: number) => {
      const settled = new Date(at + 2000).toISOString();
      await until('2 s to pass', () => Date.now() > at + 2000, 3000, 20);
      await sleep(3000); // bound: 3 ticks of the every-second schedule, which a live schedule would capture
      expect(await capturesAfter(monitorId, settled)).toBe(0);
    };

    const created = await api.call('POST', '/api/monitors', key, {
      url: `${fx.url}/watched`,
      capture: SMALL,
      schedule: EVERY_SECOND,
    });
    expect(created.status).toBe(201);
    const m = (await created.json()) as { id: string; createdAt: string };
    await queuedWithin3s(m.id, m.createdAt);

    expect((await api2.call('PATCH', `/api/monitors/${m.id}`, key, { paused: true })).status).toBe(200);
    await unscheduledWithin2s(m.id, Date.now());

    const resumedAt = new Date().toISOString();
    expect((await api.call('PATCH', `/api/monitors/${m.id}`, key, { paused: false })).status).toBe(200);
    await queuedWithin3s(m.id, resumedAt);

    expect((await api2.call('DELETE', `/api/monitors/${m.id}`, key)).status).toBe(204);
    await unscheduledWithin2s(m.id, Date.now());
  }, 60_000);
});
