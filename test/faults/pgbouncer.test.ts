// Two nodes that reach PostgreSQL only through PgBouncer in transaction mode (Debian's pgbouncer, run by
// the test on a port of its own), as docs/postgresql.md describes: prepared statements off (PgBouncer
// before 1.21 does not carry them). The first node migrates the empty database through it. LISTEN cannot
// work through it, so the nodes learn of each other's work by polling; every job, webhook and tick must
// still land, once, and no advisory lock (migrations, the sweep) may be left behind on a pooled server
// connection, where no later unlock could reach it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.js';
import { freePorts } from '../helpers/free-ports.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { describePostgres, POSTGRES_URL } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const JOBS = 10;
const EVERY_TWO_SECONDS = '*/2 * * * * *';
const SMALL = { viewport: { width: 320, height: 200 } };
const PAGE = '<!doctype html><body style="margin:0;background:#fff"><h1>THROUGH PGBOUNCER</h1></body>';

/** The test process's environment without the developer's PAGEWATCH_* settings. */
const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PAGEWATCH_')));

interface Bouncer {
  url(database: string): string;
  stop(): Promise<void>;
}

/** PgBouncer in transaction mode on 127.0.0.1:`port`, in front of the test server; runs as `postgres`. */
async function startPgBouncer(port: number): Promise<Bouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-pgbouncer-'));
  const server = new URL(POSTGRES_URL);
  const user = decodeURIComponent(server.username || 'postgres');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 200',
      // node-postgres sends these at connect; PgBouncer would refuse a parameter it does not track.
      'ignore_startup_parameters = extra_float_digits,options',
    ].join('\n'),
  );
  chmodSync(dir, 0o755); // PgBouncer refuses to run as root: it runs as postgres and reads these files
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const child: ChildProcess = spawn('pgbouncer', [...asUser, join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = (database: string) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`;
  await until(
    `PgBouncer to accept connections on ${port}`,
    async () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${stderr}`);
      const client = new pg.Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    15_000,
    100,
  );
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describePostgres('PgBouncer in transaction mode: two nodes', () => {
  let cluster: Cluster;
  let bouncer: Bouncer;
  let fx: FixtureServer;
  let receiver: WebhookReceiver;
  let key: string;
  const dataDirs: string[] = [];

  beforeAll(async () => {
    fx = await startFixtureServer();
    fx.route('/page', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    receiver = await startWebhookReceiver();
    // A fresh database and a direct pool to read it; the nodes are the test's own (below).
    cluster = await startCluster({ roles: [] });
    const database = new URL(cluster.database.url).pathname.slice(1);
    const [bouncerPort, ...ports] = await freePorts(3);
    bouncer = await startPgBouncer(bouncerPort!);
    const secretsKey = randomBytes(32).toString('hex');
    for (const [i, port] of ports.entries()) {
      const dataDir = mkdtempSync(join(tmpdir(), `pagewatch-bounced${i}-`));
      dataDirs.push(dataDir);
      const url = `http://127.0.0.1:${port}`;
      const node: ClusterNode = {
        name: `bounced${i}`,
        role: 'all',
        port,
        url,
        env: {
          ...cleanEnv(),
          PAGEWATCH_HOST: '127.0.0.1',
          PAGEWATCH_PORT: String(port),
          PAGEWATCH_DATA_DIR: dataDir,
          PAGEWATCH_SECRETS_KEY: secretsKey,
          PAGEWATCH_DATABASE_URL: bouncer.url(database),
          PAGEWATCH_DATABASE_PREPARED_STATEMENTS: 'false', // PgBouncer 1.18 (Debian 12) carries none
          PAGEWATCH_RENDER_CONCURRENCY: '1',
          PAGEWATCH_RENDER_WARM_PAGES: '1',
          PAGEWATCH_RENDER_SANDBOX: 'off',
          PAGEWATCH_MONITORS_DIFF_THREADS: '1',
          PAGEWATCH_MONITORS_MIN_INTERVAL_SECONDS: '1',
          PAGEWATCH_EGRESS_ALLOW_PRIVATE: 'true',
          PAGEWATCH_JOBS_POLL_INTERVAL_MS: '200',
          PAGEWATCH_JOBS_SWEEP_INTERVAL_MS: '1000', // the sweep's advisory lock taken often
          PAGEWATCH_MONITORS_RECONCILE_INTERVAL_MS: '1000',
          PAGEWATCH_RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
          PAGEWATCH_SHUTDOWN_GRACE_MS: '5000',
        },
        call: (method, path, bearer, body) =>
          fetch(`${url}${path}`, {
            method,
            headers: {
              ...(bearer && { authorization: `Bearer ${bearer}` }),
              ...(body !== undefined && { 'content-type': 'application/json' }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
      };
      cluster.nodes.push(node);
    }
    // The first node migrates the empty database through PgBouncer too: each migration's lock is its
    // transaction's (src/stores/sql/postgres/migrate.ts).
    for (const node of cluster.nodes) await cluster.start(node);
    key = (await cluster.createKey('pgbouncer')).key;
  }, 180_000);

  afterAll(async () => {
    await cluster?.close();
    await bouncer?.stop();
    await receiver?.close();
    await fx?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }, 90_000);

  it('every job runs once and is told once; monitors tick once per tick; no advisory lock is left held', async () => {
    const { nodes, pg: db } = cluster;
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await nodes[i % 2]!.call('POST', '/api/pdf', key, {
        url: `${fx.url}/page`,
        async: true,
        webhookUrl: receiver.url,
      });
      expect(res.status, await res.clone().text()).toBe(202);
      ids.push(((await res.json()) as { id: string }).id);
    }
    const monitor = await nodes[1]!.call('POST', '/api/monitors', key, {
      url: `${fx.url}/page`,
      capture: SMALL,
      schedule: EVERY_TWO_SECONDS,
    });
    expect(monitor.status, await monitor.clone().text()).toBe(201);
    const monitorId = ((await monitor.json()) as { id: string }).id;

    const statuses = async () =>
      (
        await db.query<{ id: string; status: string; attempts: number }>(
          'SELECT id, status, attempts FROM jobs WHERE id = ANY($1)',
          [ids],
        )
      ).rows;
    await until(
      'every job to succeed',
      async () => (await statuses()).every((j) => j.status === 'succeeded'),
      120_000,
      250,
    );
    expect((await statuses()).filter((j) => j.attempts !== 1)).toEqual([]);
    const hits = await receiver.waitForHits(JOBS, 60_000);
    const told = hits.map((h) => (JSON.parse(h.body) as { data: { jobId: string } }).data.jobId).sort();
    expect(told).toEqual([...ids].sort());

    const captures = async () =>
      (
        await db.query<{ at: string; n: number; succeeded: number }>(
          `SELECT request::json->>'scheduledFor' AS at, COUNT(*)::int AS n,
             COUNT(*) FILTER (WHERE status = 'succeeded')::int AS succeeded
           FROM jobs WHERE kind = 'capture' AND monitor_id = $1 GROUP BY 1`,
          [monitorId],
        )
      ).rows;
    await until(
      '3 ticks captured',
      async () => (await captures()).filter((c) => c.succeeded > 0).length >= 3,
      60_000,
      250,
    );
    const paused = await nodes[0]!.call('PATCH', `/api/monitors/${monitorId}`, key, { paused: true });
    expect(paused.status).toBe(200);
    expect((await captures()).filter((c) => c.n !== 1)).toEqual([]);

    // A session advisory lock (migrations, the sweep) taken and released on different server connections
    // would stay held on one of them for good. The sweep takes its lock for a moment every second: bound
    // 10 s for a moment with none held.
    const advisoryLocks = async () =>
      (
        await db.query<{ key: string; pid: number; state: string; query: string }>(
          `SELECT ((l.classid::bigint << 32) | l.objid::bigint)::text AS key, l.pid, a.state, a.query
           FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
      ).rows;
    const held = await until(
      'no advisory lock held',
      async () => (await advisoryLocks()).length === 0,
      10_000,
      50,
    ).catch(async (err: Error) => `${err.message}: ${JSON.stringify(await advisoryLocks())}`);
    expect(held).toBe(true);
    expect(cluster.logsAbove(50)).toEqual([]);
  }, 240_000);
});
