// N real service processes (`node dist/src/cli.js serve`) on one fresh PostgreSQL database, each on a port
// of its own, as a user runs a cluster: the multi-node tests (test/integration/multi-node/) start one per
// file. Each node has its own data directory (nothing on disk is shared: with storage.driver=database the
// files live in PostgreSQL) but the same secrets key, which every node needs to open monitors' secrets.
// Processes are started and killed by durability-cli.ts (its log reading finds each node's Chromium).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createKeyWithCli, killHard, startCli, type CliService } from './durability-cli.js';
import { freePorts } from './free-ports.js';
import { freshDatabase, type FreshDatabase } from './postgres.js';

export type Role = 'all' | 'api' | 'worker';

export interface ClusterNode {
  name: string;
  role: Role;
  port: number;
  url: string;
  /** The environment the node's process runs with (PAGEWATCH_* settings). */
  env: NodeJS.ProcessEnv;
  /** The running process; undefined while the node is stopped. */
  process?: CliService;
  /** A request to this node, with the key when given (and a JSON body, if given). */
  call(method: string, path: string, key?: string, body?: unknown): Promise<Response>;
}

export interface Cluster {
  database: FreshDatabase;
  /** A pool of its own on the cluster's database, for the tests to read what the nodes wrote. */
  pg: pg.Pool;
  nodes: ClusterNode[];
  /** `pagewatch keys create` against the cluster's database (a CLI process, as an operator runs it). */
  createKey(name?: string): Promise<{ id: string; key: string; webhookSecret: string }>;
  start(node: ClusterNode): Promise<void>;
  /** SIGTERM, then (after `graceMs`) SIGKILL; every Chromium the node launched is reaped either way. */
  stop(node: ClusterNode, graceMs?: number): Promise<void>;
  /** kill -9 of the node and its Chromium process groups, as when a machine dies. */
  kill(node: ClusterNode): Promise<void>;
  /** Every node's log lines at `minLevel` or above (pino: 40 warn, 50 error) so far, restarts included. */
  logsAbove(minLevel: number): string[];
  close(): Promise<void>;
}

export interface ClusterOptions {
  /** One entry per node: its role (default `all`). */
  roles?: Role[];
  /** PAGEWATCH_* settings for every node, over the cluster's defaults below. */
  settings?: Record<string, string>;
  /**
   * The database the nodes share, instead of a fresh one on the shared server: a fault test's own server
   * (throwaway-postgres.ts), which it stops and restarts. The cluster drops it on close as it would its own.
   */
  database?: FreshDatabase;
}

/** What every node runs with unless a test says otherwise. */
const DEFAULT_SETTINGS: Record<string, string> = {
  PAGEWATCH_HOST: '127.0.0.1',
  PAGEWATCH_RENDER_CONCURRENCY: '1',
  PAGEWATCH_RENDER_WARM_PAGES: '1',
  PAGEWATCH_MONITORS_DIFF_THREADS: '1',
  PAGEWATCH_EGRESS_ALLOW_PRIVATE: 'true', // fixtures and webhook receivers on 127.0.0.x
  PAGEWATCH_JOBS_POLL_INTERVAL_MS: '200',
  PAGEWATCH_RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000', // the tests poll their jobs often
  PAGEWATCH_RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
  PAGEWATCH_SHUTDOWN_GRACE_MS: '5000',
};

/** The test process's environment without the developer's PAGEWATCH_* settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PAGEWATCH_')));
}

function nodeCall(url: string) {
  return (method: string, path: string, key?: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        ...(key && { authorization: `Bearer ${key}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const roles = options.roles ?? ['all', 'all', 'all'];
  const database = options.database ?? (await freshDatabase());
  const ports = await freePorts(roles.length);
  const secretsKey = randomBytes(32).toString('hex');
  const dataDirs: string[] = [];
  const nodes: ClusterNode[] = roles.map((role, i) => {
    const dataDir = mkdtempSync(join(tmpdir(), `pagewatch-node${i}-`));
    dataDirs.push(dataDir);
    const url = `http://127.0.0.1:${ports[i]}`;
    const env: NodeJS.ProcessEnv = {
      ...cleanEnv(),
      ...DEFAULT_SETTINGS,
      ...options.settings,
      PAGEWATCH_DATABASE_URL: database.url,
      PAGEWATCH_DATA_DIR: dataDir,
      PAGEWATCH_SECRETS_KEY: secretsKey,
      PAGEWATCH_PORT: String(ports[i]),
      PAGEWATCH_ROLE: role,
    };
    return { name: `node${i}`, role, port: ports[i]!, url, env, call: nodeCall(url) };
  });
  const pool = new pg.Pool({ connectionString: database.url, max: 3 });
  pool.on('error', () => undefined); // an idle client's error surfaces through the next query

  const started: { node: ClusterNode; svc: CliService }[] = [];
  const start = async (node: ClusterNode) => {
    node.process = await startCli(node.env, 60_000);
    started.push({ node, svc: node.process });
  };
  const kill = async (node: ClusterNode) => {
    const svc = node.process;
    node.process = undefined;
    if (svc && !(await killHard(svc))) throw new Error(`${node.name}: a Chromium process outlived SIGKILL`);
  };
  const stop = async (node: ClusterNode, graceMs = 15_000) => {
    const svc = node.process;
    if (!svc) return;
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([svc.exit, new Promise((done) => (timer = setTimeout(done, graceMs)))]);
    clearTimeout(timer);
    await kill(node); // SIGKILL if it is still there; reaps the browsers either way
  };

  const cluster: Cluster = {
    database,
    pg: pool,
    nodes,
    createKey: (name = 'cluster-test') => createKeyWithCli({ ...nodes[0]!.env, PAGEWATCH_LOG_LEVEL: 'silent' }, name),
    start,
    stop,
    kill,
    logsAbove: (minLevel) =>
      started.flatMap(({ node, svc }) =>
        svc.logLines
          .filter((line) => Number(line.level) >= minLevel)
          .map((line) => `${node.name}: ${JSON.stringify(line)}`),
      ),
    close: async () => {
      await Promise.allSettled(nodes.map((n) => stop(n)));
      await pool.end();
      await database.drop();
      for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // One at a time: the first runs the migrations (the others would wait on its advisory lock anyway),
    // and three Chromiums launching at once on a 2-core machine only slow each other down.
    for (const node of nodes) await start(node);
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}
