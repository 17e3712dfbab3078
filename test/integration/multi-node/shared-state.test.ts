// What three nodes on one PostgreSQL share (issue #13), on one cluster with storage.driver=database:
// keys (created by the CLI, they work on every node at once; revoked, every node refuses them within 1 s
// and the key's render running on any node stops, its job canceled), the anonymous rate limit (20 a
// minute across all nodes, not per node) and stored files (a result or a capture image made by one node
// downloads byte-identical, with its Content-Type and Content-Length, through every node).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../../helpers/cluster.js';
import { CLI } from '../../helpers/durability-cli.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { describePostgres } from '../../helpers/postgres.js';
import { until } from '../../helpers/until.js';

const ANONYMOUS_PER_MINUTE = 20;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function submit(node: ClusterNode, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await node.call('POST', '/api/pdf', key, { ...body, async: true });
  if (res.status !== 202) throw new Error(`${node.name}: async submit → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

describePostgres('multi-node: keys, rate limits and files are shared', () => {
  let cluster: Cluster;
  let fx: FixtureServer;
  /** Requests to /hold whose connection the browser closed before the (never sent) answer. */
  const abandoned: string[] = [];

  beforeAll(async () => {
    fx = await startFixtureServer();
    fx.route('/hold', (req, res) => {
      // Never answers: the render waits until its job is canceled and the page closed.
      res.on('close', () => abandoned.push(req.url ?? ''));
    });
    cluster = await startCluster({
      settings: {
        PAGEWATCH_STORAGE_DRIVER: 'database',
        PAGEWATCH_RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANONYMOUS_PER_MINUTE),
      },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await fx?.close();
  }, 60_000);

  it('a CLI key works on every node at once; revoked, every node refuses it in 1 s and its render stops', async () => {
    const { nodes, pg } = cluster;
    const issued = await cluster.createKey('shared-key');
    for (const node of nodes) expect((await node.call('GET', '/api/jobs', issued.key)).status).toBe(200);

    const id = await submit(nodes[1]!, issued.key, { url: `${fx.url}/hold?job`, timeout: 60_000 });
    await until('the page to be requested', () => fx.requests.some((r) => r.path === '/hold?job'), 30_000);
    const [renderer] = await until('a node to be rendering it', async () => {
      const busy: ClusterNode[] = [];
      for (const node of nodes) {
        const status = (await (await node.call('GET', '/api/status')).json()) as { render: { active: number } };
        if (status.render.active > 0) busy.push(node);
      }
      return busy.length > 0 && busy;
    });

    const env = { ...nodes[0]!.env, PAGEWATCH_LOG_LEVEL: 'silent' };
    await promisify(execFile)(process.execPath, [CLI, 'keys', 'revoke', issued.id], { env });
    const revokedAt = Date.now();
    // Bound 1 s: no node may keep accepting a revoked key for longer.
    await until(
      'every node to refuse the revoked key',
      async () => {
        const codes = await Promise.all(nodes.map(async (n) => (await n.call('GET', '/api/jobs', issued.key)).status));
        return codes.every((c) => c === 401);
      },
      1000,
      20,
    );
    const refusedAfter = Date.now() - revokedAt;
    const job = await until(
      'the job to be canceled',
      async () =>
        (await pg.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [id])).rows.find(
          (r) => r.status === 'canceled',
        ),
      5000,
    );
    expect(job.status).toBe('canceled');
    // The render itself stopped on the node that ran it: the browser let go of the page's request, and
    // that node renders nothing any more.
    await until('the browser to drop the held request', () => abandoned.includes('/hold?job'), 5000, 20);
    await until(
      `${renderer!.name} to stop rendering`,
      async () =>
        ((await (await renderer!.call('GET', '/api/status')).json()) as { render: { active: number } }).render
          .active === 0,
      5000,
    );
    console.log(`revocation: every node refused the key ${refusedAfter} ms after the CLI's exit`);
  }, 90_000);

  it('the anonymous limit holds across nodes: 60 requests over 3 nodes, 20 accepted in all', async () => {
    const started = Date.now();
    // An empty body passes the limiter and is then refused as invalid (400): accepted without a render.
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        cluster.nodes[i % 3]!.call('POST', '/api/pdf', undefined, {}).then((r) => r.status),
      ),
    );
    const elapsed = Date.now() - started;
    const accepted = statuses.filter((s) => s !== 429);
    expect(accepted.every((s) => s === 400)).toBe(true);
    // The bucket refills 20 a minute (one per 3 s): requests taking longer earn that many more.
    const refilled = Math.floor((elapsed * ANONYMOUS_PER_MINUTE) / 60_000);
    expect(accepted.length).toBeGreaterThanOrEqual(ANONYMOUS_PER_MINUTE);
    expect(accepted.length).toBeLessThanOrEqual(ANONYMOUS_PER_MINUTE + refilled);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - accepted.length);
  });

  it('a result and a capture image made by one node download byte-identical through every node', async () => {
    const { nodes, pg } = cluster;
    const { key } = await cluster.createKey('files');
    const id = await submit(nodes[1]!, key, { html: '<h1>SHARED RESULT</h1><p>bytes in PostgreSQL</p>' });
    await until(
      'the job to succeed',
      async () =>
        (await pg.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [id])).rows[0]!.status ===
        'succeeded',
      60_000,
    );
    // The bytes are in the database (storage.driver=database), not in a node's data directory.
    const stored = (
      await pg.query<{ size: number }>('SELECT size::int AS size FROM blobs WHERE key LIKE $1', [`${id}%`])
    ).rows;
    expect(stored).toHaveLength(1);
    await expectSameEverywhere(nodes, key, `/api/jobs/${id}/result`, 'application/pdf', stored[0]!.size);

    fx.route('/watched', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1 style="color:#a33">SHARED CAPTURE</h1>');
    });
    const created = await nodes[2]!.call('POST', '/api/monitors', key, {
      url: `${fx.url}/watched`,
      capture: { viewport: { width: 320, height: 200 } },
      schedule: '0 0 1 1 *',
    });
    expect(created.status).toBe(201);
    const monitor = (await created.json()) as { id: string };
    expect([201, 202]).toContain((await nodes[2]!.call('POST', `/api/monitors/${monitor.id}/run`, key)).status);
    const capture = await until(
      'the capture',
      async () =>
        (
          await pg.query<{ id: string; status: string }>(
            "SELECT id, status FROM captures WHERE monitor_id = $1 AND status = 'succeeded'",
            [monitor.id],
          )
        ).rows[0],
      60_000,
    );
    await expectSameEverywhere(nodes, key, `/api/captures/${capture.id}/image`, 'image/png');
  }, 120_000);
});

async function expectSameEverywhere(
  nodes: ClusterNode[],
  key: string,
  path: string,
  type: string,
  size?: number,
): Promise<void> {
  const hashes = new Set<string>();
  for (const node of nodes) {
    const res = await node.call('GET', path, key);
    expect(res.status, `${node.name} GET ${path}`).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    const body = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    if (size !== undefined) expect(body.length).toBe(size);
    expect(body.length).toBeGreaterThan(100);
    hashes.add(sha256(body));
  }
  expect(hashes.size).toBe(1);
}
