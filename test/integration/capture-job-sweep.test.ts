// Capture jobs are deleted by the sweeper an hour after they finished: their outcome is the capture row
// (kept by the monitor's retention), and the job rows would otherwise pile up, one a minute per monitor.
// Unfinished capture jobs, render jobs and the captures themselves are left alone.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let fx: FixtureServer;

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({ jobs: { pollIntervalMs: 50, sweepIntervalMs: 100 } }),
    startFixtureServer(),
  ]);
  fx.route('/watched', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>WATCHED</h1>');
  });
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close()]);
});

const jobRow = (id: string) =>
  svc.db.prepare('SELECT kind, status FROM jobs WHERE id = ?').get(id) as { kind: string; status: string } | undefined;
const ageFinished = (id: string, ms: number) =>
  svc.db.prepare('UPDATE jobs SET finished_at = ? WHERE id = ?').run(new Date(Date.now() - ms).toISOString(), id);

it('a capture job finished over an hour ago is deleted; a recent one, a render job and the capture stay', async () => {
  const key = svc.createKey('sweep');
  const res = await svc.call('POST', '/api/monitors', key.key, { url: `${fx.url}/watched`, schedule: '0 0 1 1 *' });
  expect(res.status).toBe(201);
  const monitor = (await res.json()) as { id: string };
  const captureJobs: string[] = [];
  for (let n = 1; n <= 2; n++) {
    expect((await svc.call('POST', `/api/monitors/${monitor.id}/run`, key.key)).status).toBe(202);
    const job = await until(`capture job ${n}`, () => {
      const row = svc.db
        .prepare(
          `SELECT id, status FROM jobs WHERE kind = 'capture' AND id NOT IN (SELECT value FROM json_each(?))
        ORDER BY created_at DESC LIMIT 1`,
        )
        .get(JSON.stringify(captureJobs)) as { id: string; status: string } | undefined;
      return row?.status === 'succeeded' && row.id;
    });
    captureJobs.push(job);
  }
  const render = await svc.call('POST', '/api/image', key.key, {
    html: '<p>job</p>',
    viewport: { width: 20, height: 20 },
    async: true,
  });
  expect(render.status).toBe(202);
  const renderJob = ((await render.json()) as { id: string }).id;
  await until('the render job', () => jobRow(renderJob)?.status === 'succeeded');

  const [old, recent] = captureJobs as [string, string];
  ageFinished(old, 2 * 3600_000);
  ageFinished(recent, 30 * 60_000);
  ageFinished(renderJob, 2 * 3600_000);
  await until('the old capture job to be swept', () => jobRow(old) === undefined, 10_000);
  expect(jobRow(recent)).toEqual({ kind: 'capture', status: 'succeeded' });
  expect(jobRow(renderJob)).toEqual({ kind: 'image', status: 'succeeded' });
  // The captures the jobs made are still there, with their images.
  const { items } = (await (await svc.call('GET', `/api/monitors/${monitor.id}/captures`, key.key)).json()) as {
    items: { id: string }[];
  };
  expect(items).toHaveLength(2);
  for (const { id } of items) expect((await svc.call('GET', `/api/captures/${id}/image`, key.key)).status).toBe(200);
});
