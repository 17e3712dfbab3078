// PostgreSQL stopped and started again under two nodes (issue #24), an API node and a worker node on a
// server of the test's own:
// - while it is down, whatever needs it — an anonymous render (the shared rate limit), a keyed render
//   (the key check), an async submission — answers 503 unavailable with Retry-After, never a bare 500,
//   and /ready answers 503 naming the database; both processes stay up;
// - once it is back, everything works again without restarting either node;
// - the LISTEN connection reconnects by itself: after a restart, a job submitted on the API node wakes
//   the worker node at once. The worker polls only every 60 s, so a pick-up within seconds is LISTEN's.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.js';
import { databaseOn } from '../helpers/throwaway-database.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../helpers/throwaway-postgres.js';
import { until } from '../helpers/until.js';

const POLL_MS = 60_000;
/** A pick-up slower than this is not a wake-up (a poll would take POLL_MS); a busy 2-core machine may take a few seconds. */
const WOKEN_WITHIN_MS = 10_000;

let server: ThrowawayPostgres;
let cluster: Cluster;
let api: ClusterNode;
let worker: ClusterNode;
let key: string;
let watch: pg.Pool;

beforeAll(async () => {
  server = await startThrowawayPostgres();
  cluster = await startCluster({
    roles: ['api', 'worker'],
    database: await databaseOn(server),
    settings: { PAGEWATCH_JOBS_POLL_INTERVAL_MS: String(POLL_MS) },
  });
  [api, worker] = cluster.nodes as [ClusterNode, ClusterNode];
  key = (await cluster.createKey('database-stop')).key;
  watch = new pg.Pool({ connectionString: cluster.database.url, max: 2 });
  watch.on('error', () => undefined); // a connection cut by a stop: the next query opens another
}, 180_000);

afterAll(async () => {
  await watch?.end();
  await cluster?.close();
  await server?.drop();
}, 60_000);

const alive = (node: ClusterNode) =>
  node.process !== undefined && node.process.child.exitCode === null && node.process.child.signalCode === null;

function expectAlive(): void {
  for (const node of [api, worker])
    expect(alive(node), `${node.name} exited: ${node.process?.stderrTail()}`).toBe(true);
}

async function expectUnavailable(res: Response, what: string): Promise<void> {
  const body = await res.text();
  expect(res.status, `${what}: ${body}`).toBe(503);
  expect((JSON.parse(body) as { error: { code: string } }).error.code).toBe('unavailable');
  expect(Number(res.headers.get('retry-after')), `${what}: Retry-After`).toBeGreaterThan(0);
}

const SMALL = { html: '<p>db</p>', viewport: { width: 100, height: 100 } };

async function jobStatus(id: string): Promise<string | undefined> {
  const { rows } = await watch.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [id]);
  return rows[0]?.status;
}

/** Both nodes' LISTEN connections are up (each node keeps one, idle after its LISTEN statement). */
async function bothListening(): Promise<boolean> {
  const { rows } = await watch.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN pagewatch'",
  );
  return rows[0]!.n === 2;
}

/** Submits on the API node; how long until the worker node started it (its row, both clocks this machine's). */
async function pickUpMs(): Promise<number> {
  const res = await api.call('POST', '/api/pdf', key, { ...SMALL, async: true });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  await until(`job ${id} to succeed`, async () => (await jobStatus(id).catch(() => undefined)) === 'succeeded', 60_000);
  const { rows } = await watch.query<{ ms: number }>(
    'SELECT (extract(epoch FROM started_at::timestamptz - created_at::timestamptz) * 1000)::int AS ms FROM jobs WHERE id = $1',
    [id],
  );
  return rows[0]!.ms;
}

it('PostgreSQL stopped: 503 unavailable with Retry-After and /ready naming the database; started: all works', async () => {
  expect((await api.call('POST', '/api/pdf', undefined, SMALL)).status).toBe(200);
  await server.stop('fast');

  await expectUnavailable(await api.call('POST', '/api/pdf', undefined, SMALL), 'anonymous render');
  await expectUnavailable(await api.call('POST', '/api/pdf', key, SMALL), 'keyed render');
  await expectUnavailable(await api.call('POST', '/api/pdf', key, { ...SMALL, async: true }), 'async submission');
  for (const node of [api, worker]) {
    const ready = await node.call('GET', '/ready');
    const body = (await ready.json()) as { error: { details: { path: string; message: string }[] } };
    expect(ready.status, node.name).toBe(503);
    const database = body.error.details.find((d) => d.path === 'database');
    expect(database?.message, node.name).toMatch(/^not usable: the database does not answer/);
  }
  expectAlive();

  await server.start();
  // Back without restarting either node: ready again, renders, and an async job through both nodes.
  for (const node of [api, worker])
    await until(`${node.name} to be ready`, async () => (await node.call('GET', '/ready')).status === 200, 30_000, 200);
  expect((await api.call('POST', '/api/pdf', undefined, SMALL)).status).toBe(200);
  expect((await api.call('POST', '/api/pdf', key, SMALL)).status).toBe(200);
  await pickUpMs();
  expectAlive();
}, 120_000);

it('PostgreSQL restarted: the LISTEN connection comes back and a job on the API node wakes the worker at once', async () => {
  await server.start().catch(() => undefined); // up already, unless the test above failed while it was down
  await until('both nodes to listen', () => bothListening().catch(() => false), 30_000, 100);
  const before = await pickUpMs();
  await server.restart();
  // The reconnect (0.25 s backoff, doubling) resyncs every consumer once; a job submitted after it can be
  // woken only by its NOTIFY.
  await until('both nodes to listen again', () => bothListening().catch(() => false), 30_000, 100);
  const after = await pickUpMs();
  console.log(`pick-up by NOTIFY: ${before} ms before the restart, ${after} ms after (poll interval ${POLL_MS} ms)`);
  expect(before).toBeLessThan(WOKEN_WITHIN_MS);
  expect(after).toBeLessThan(WOKEN_WITHIN_MS);
  expectAlive();
}, 120_000);
