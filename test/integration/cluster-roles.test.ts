// Two nodes over one database (SQLite file: one api node, one worker node), as `role` splits them: the
// api node serves the API but works no job; the worker node works the jobs the api node queued and
// answers only /health, /ready and /metrics; /api/status lists both nodes from the registry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';

interface NodeJson {
  id: string;
  role: string;
  host: string;
  version: string;
  startedAt: string;
  heartbeatAt: string;
  alive: boolean;
}
interface StatusJson {
  node: { id: string; role: string };
  cluster: { nodes: NodeJson[] };
}

let api: TestService;
let worker: TestService | undefined;
let key: IssuedKey;
beforeAll(async () => {
  api = await startTestService({ role: 'api', jobs: { pollIntervalMs: 100 } });
  key = api.createKey('cluster');
});
afterAll(async () => {
  await worker?.stop(); // the api node's close removes the shared data directory
  await api?.close();
});

const status = async (): Promise<StatusJson> => {
  const res = await fetch(`${api.url}/api/status`);
  expect(res.status).toBe(200);
  return (await res.json()) as StatusJson;
};
const jobStatus = async (id: string) =>
  ((await (await api.call('GET', `/api/jobs/${id}`, key.key)).json()) as { status: string }).status;

describe('an api node and a worker node over one database', () => {
  it('the api node queues an async job but does not work it; the worker node does', async () => {
    const res = await api.call('POST', '/api/image', key.key, {
      html: '<body style="margin:0;background:#00f">',
      viewport: { width: 100, height: 50 },
      async: true,
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    await sleep(1000); // bound: ten polls of the api node's worker (jobs.pollIntervalMs 100) if it had one running
    expect(await jobStatus(id)).toBe('queued');

    worker = await startTestService({ dataDir: api.dataDir, role: 'worker', jobs: { pollIntervalMs: 100 } });
    await until(`job ${id} worked by the worker node`, async () => (await jobStatus(id)) === 'succeeded', 60_000);
    const result = await api.call('GET', `/api/jobs/${id}/result`, key.key);
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('image/png');
  });

  it('/api/status names the answering node and lists both, alive, with their roles', async () => {
    const s = await status();
    expect(s.node).toEqual({ id: api.node.id, role: 'api' });
    expect(s.node.id).toMatch(/^node_[0-9a-f]{16}$/);
    const byRole = Object.fromEntries(s.cluster.nodes.map((n) => [n.role, n]));
    expect(s.cluster.nodes).toHaveLength(2);
    expect(byRole.api).toMatchObject({ id: api.node.id, alive: true, version: expect.any(String) as string });
    expect(byRole.worker).toMatchObject({ id: worker!.node.id, alive: true });
    expect(Date.parse(byRole.worker!.heartbeatAt)).toBeGreaterThanOrEqual(Date.parse(byRole.worker!.startedAt));
  });

  it('the worker node answers /health, /ready and /metrics, and 404 with the error body elsewhere', async () => {
    const url = worker!.url;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(((await (await fetch(`${url}/ready`)).json()) as { status: string }).status).toBe('ready');
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('pagewatch_renders_total');
    for (const [method, path] of [
      ['GET', '/api/status'],
      ['POST', '/api/pdf'],
      ['GET', '/api/jobs'],
      ['GET', '/'],
    ] as const) {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${key.key}` } });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it("a node's clean stop removes it from the registry", async () => {
    await worker!.stop();
    worker = undefined;
    expect((await status()).cluster.nodes.map((n) => n.role)).toEqual(['api']);
  });
});
