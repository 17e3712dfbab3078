// compose.yaml as it is, brought up by podman-compose: PostgreSQL (the test's locally built stand-in for
// postgres:15, through POSTGRES_IMAGE), two API nodes and two workers of the image built from Containerfile,
// with the seccomp profile compose.yaml passes. The nodes talk over the compose network as users' do; the
// test reaches the API nodes through their published ports on 127.0.0.1, and a monitor watches a page one
// API node serves to the others (so nothing leaves this machine).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../helpers/free-ports.js';
import { decodePng } from '../helpers/png.js';
import {
  containerProcesses,
  hasArg,
  PAGEWATCH_IMAGE,
  podman,
  podmanEnv,
  podmanMissing,
  POSTGRES_IMAGE,
  run,
} from '../helpers/podman.js';
import { until } from '../helpers/until.js';

const skip =
  podmanMissing() ?? (spawnSync('podman-compose', ['version']).error ? 'podman-compose is not installed' : undefined);
if (skip) console.warn(`test/containers/compose.test.ts: SKIPPED (${skip})`);
const project = `pwtest${process.pid}${randomBytes(2).toString('hex')}`;
let api: [string, string];
let composeEnv: NodeJS.ProcessEnv;

const compose = (args: string[], allowFailure = false) =>
  run('podman-compose', ['-p', project, '-f', 'compose.yaml', ...args], {
    env: composeEnv,
    timeoutMs: 300_000,
    allowFailure,
  });
const call = (node: 0 | 1, method: string, path: string, key: string, body?: unknown) =>
  fetch(`${api[node]}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
const json = async <T>(res: Response, status: number): Promise<T> => {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as T;
};

describe.skipIf(Boolean(skip))('compose.yaml: PostgreSQL, two API nodes, two workers', () => {
  let key: { id: string; key: string };

  beforeAll(async () => {
    const [port1, port2] = (await freePorts(2)) as [number, number];
    api = [`http://127.0.0.1:${port1}`, `http://127.0.0.1:${port2}`];
    composeEnv = podmanEnv({
      POSTGRES_IMAGE,
      PAGEWATCH_IMAGE,
      POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
      PAGEWATCH_SECRETS_KEY: randomBytes(32).toString('hex'),
      PAGEWATCH_API1_PORT: String(port1),
      PAGEWATCH_API2_PORT: String(port2),
      // The monitor below watches a page the API nodes serve on the compose network.
      PAGEWATCH_EGRESS_ALLOW_HOSTS: '["api1","api2"]',
    });
    await compose(['up', '-d']);
    for (const url of api)
      await until(
        `${url} to answer /ready 200`,
        async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200,
        120_000,
        500,
      );
    const created = await podman(['exec', `${project}_api1_1`, 'pagewatch', 'keys', 'create', '--name', 'compose']);
    const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)$`, 'm').exec(created.stdout)?.[1] ?? '';
    key = { id: field('id'), key: field('key') };
    expect(key.key, created.stdout).not.toBe('');
  }, 300_000);

  afterAll(async () => {
    if (!composeEnv) return;
    // podman-compose's `down -v` leaves the nodes' anonymous /data volumes (the image's VOLUME): found first.
    const ids = (await podman(['ps', '-aq', '--filter', `label=io.podman.compose.project=${project}`])).stdout;
    const mounts = ids.trim()
      ? (
          await podman([
            'inspect',
            '--format',
            '{{range .Mounts}}{{.Name}} {{end}}',
            ...ids.split('\n').filter(Boolean),
          ])
        ).stdout
      : '';
    await compose(['down', '-v'], true);
    for (const volume of new Set([...mounts.split(/\s+/).filter(Boolean), `${project}_pgdata`]))
      await podman(['volume', 'rm', '-f', volume], { allowFailure: true });
    await podman(['network', 'rm', '-f', `${project}_default`], { allowFailure: true });
  }, 120_000);

  it('every node is ready with the sandbox on; /api/status lists two api and two worker nodes', async () => {
    for (const url of api)
      expect(((await (await fetch(`${url}/ready`)).json()) as { sandbox: string }).sandbox).toBe('on');
    const status = await until(
      'four live nodes',
      async () => {
        const s = (await (await call(0, 'GET', '/api/status', key.key)).json()) as {
          cluster: { nodes: { role: string; alive: boolean }[] };
        };
        const alive = s.cluster.nodes.filter((n) => n.alive).map((n) => n.role);
        return alive.length === 4 && alive.sort();
      },
      60_000,
      500,
    );
    expect(status).toEqual(['api', 'api', 'worker', 'worker']);
    // A worker's renderers are sandboxed under the profile compose.yaml passes (the image test has the details).
    const procs = await containerProcesses(`${project}_worker_1`);
    expect(procs.some((p) => hasArg(p, '--no-sandbox'))).toBe(false);
    expect(procs.every((p) => p.uid === 10001)).toBe(true);
  });

  it('an async job submitted to api node 1 is done by a worker, and its result is read from api node 2', async () => {
    const job = await json<{ id: string }>(
      await call(0, 'POST', '/api/image', key.key, {
        html: '<body style="margin:0;background:rgb(200,20,120)">',
        viewport: { width: 40, height: 30 },
        async: true,
      }),
      202,
    );
    await until(
      `job ${job.id} succeeded`,
      async () =>
        (await json<{ status: string }>(await call(1, 'GET', `/api/jobs/${job.id}`, key.key), 200)).status ===
        'succeeded',
      90_000,
      500,
    );
    const result = await call(1, 'GET', `/api/jobs/${job.id}/result`, key.key);
    expect(result.status).toBe(200);
    const png = decodePng(Buffer.from(await result.arrayBuffer()));
    expect([png.width, png.height]).toEqual([40, 30]);
    expect(png.pixel(20, 15)).toEqual({ r: 200, g: 20, b: 120, a: 255 });
  });

  it('a monitor created on api node 1 is captured by a worker; the capture is read from api node 2', async () => {
    const monitor = await json<{ id: string }>(
      await call(0, 'POST', '/api/monitors', key.key, {
        url: 'http://api2:3000/health',
        capture: { viewport: { width: 200, height: 100 } },
        schedule: '0 0 1 1 *',
      }),
      201,
    );
    expect([201, 202]).toContain((await call(0, 'POST', `/api/monitors/${monitor.id}/run`, key.key)).status);
    const capture = await until(
      'a succeeded capture',
      async () => {
        const list = await json<{ items: { id: string; status: string; error?: unknown }[] }>(
          await call(1, 'GET', `/api/monitors/${monitor.id}/captures`, key.key),
          200,
        );
        const failed = list.items.find((c) => c.status === 'failed');
        if (failed) throw new Error(`the capture failed: ${JSON.stringify(failed)}`);
        return list.items.find((c) => c.status === 'succeeded');
      },
      90_000,
      500,
    );
    const image = await call(1, 'GET', `/api/captures/${capture.id}/image`, key.key);
    expect(image.status).toBe(200);
    expect(decodePng(Buffer.from(await image.arrayBuffer())).width).toBe(200);
  });

  it('a key revoked on api node 1 is refused by api node 2', async () => {
    expect((await call(1, 'GET', '/api/jobs', key.key)).status).toBe(200);
    await podman(['exec', `${project}_api1_1`, 'pagewatch', 'keys', 'revoke', key.id]);
    // Bound 5 s: every node looks the key up on each request, so the next one is refused.
    await until(
      'api node 2 to refuse the revoked key',
      async () => (await call(1, 'GET', '/api/jobs', key.key)).status === 401,
      5000,
      100,
    );
  });
});
