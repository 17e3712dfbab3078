// Stored files no row refers to — what a crash leaves between writing a file and committing its row, or
// between deleting rows and their files — are removed by the sweeper's first pass after a restart. Files
// rows still refer to, files too new to judge and files the store did not write are left alone.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServiceOn, type DurableService } from '../helpers/durability-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng } from '../helpers/png.js';
import { bytesOf } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const OPTIONS = { jobs: { pollIntervalMs: 50, sweepIntervalMs: 100 } };
const TWO_HOURS_AGO = new Date(Date.now() - 2 * 3600_000);

let dataDir: string;
let fixture: FixtureServer;
const services: DurableService[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-orphans-'));
  fixture = await startFixtureServer();
  fixture.route('/watched', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>WATCHED</h1>');
  });
});
afterAll(async () => {
  for (const s of services) await s.stop().catch(() => undefined);
  await fixture?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<DurableService> {
  const svc = await startServiceOn(dataDir, OPTIONS);
  services.push(svc);
  return svc;
}

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** Writes `relative` under the data directory, dated `at`. */
function plant(relative: string, at: Date): string {
  const file = join(dataDir, relative);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, 'left behind by a crash');
  utimesSync(file, at, at);
  return file;
}

/** Every file under the data directory's `folder`, relative to it, sorted. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(dataDir, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(join(dataDir, folder).length + 1))
    .sort();
}

it('after a restart, old files no row refers to are removed; referenced, recent and foreign files stay', async () => {
  // A first life: one async job's result and one monitor capture, both really referenced by rows.
  const first = await start();
  const key = first.createKey('orphans');
  const job = await json<{ id: string }>(
    await first.call('POST', '/api/image', key.key, {
      html: '<p>KEPT</p>',
      viewport: { width: 40, height: 30 },
      async: true,
    }),
    202,
  );
  await until(
    'the job to succeed',
    async () =>
      (await json<{ status: string }>(await first.call('GET', `/api/jobs/${job.id}`, key.key), 200)).status ===
      'succeeded',
  );
  const monitor = await json<{ id: string }>(
    await first.call('POST', '/api/monitors', key.key, { url: `${fixture.url}/watched`, schedule: '0 0 1 1 *' }),
    201,
  );
  await json(await first.call('POST', `/api/monitors/${monitor.id}/run`, key.key), 202);
  const capture = await until('the capture', async () => {
    const { items } = await json<{ items: { id: string; status: string }[] }>(
      await first.call('GET', `/api/monitors/${monitor.id}/captures`, key.key),
      200,
    );
    return items[0]?.status === 'succeeded' && items[0];
  });
  await first.stop();

  const referenced = [
    ...filesUnder('results').map((f) => `results/${f}`),
    ...filesUnder('captures').map((f) => `captures/${f}`),
  ];
  expect(referenced).toEqual([
    `results/${job.id}-1`,
    `captures/${monitor.id}/${capture.id}`,
    `captures/${monitor.id}/${capture.id}-text`,
  ]);
  // Referenced files as old as the orphans: only the rows can save them.
  for (const f of referenced) utimesSync(join(dataDir, f), TWO_HOURS_AGO, TWO_HOURS_AGO);

  // What crashes leave: a result of an earlier try, a result of a job whose row never committed, a half
  // write, a capture whose row was pruned or never written (image, diff and text blocks), a deleted monitor's folder.
  const orphans = [
    `results/${job.id}-2`,
    'results/job_neverrecorded-1',
    'results/job_halfwritten-1.partial',
    `captures/${monitor.id}/cap_pruned`,
    `captures/${monitor.id}/cap_pruned-diff`,
    `captures/${monitor.id}/cap_pruned-text`,
    'captures/mon_deleted/cap_gone',
  ].map((f) => plant(f, TWO_HOURS_AGO));
  // Too recent to judge (its row may be about to commit), and files the store never writes.
  const spared = [
    plant('results/job_rendering-1', new Date()),
    plant(`captures/${monitor.id}/cap_recording`, new Date()),
    plant('captures/notes.txt', TWO_HOURS_AGO),
    plant('results/README.md', TWO_HOURS_AGO),
  ];

  const second = await start();
  await until('the orphans to be removed', () => orphans.every((f) => !existsSync(f)), 15_000);
  for (const f of [...referenced.map((r) => join(dataDir, r)), ...spared]) expect(existsSync(f), f).toBe(true);

  // What the rows refer to is still served.
  const result = await second.call('GET', `/api/jobs/${job.id}/result`, key.key);
  expect(result.status).toBe(200);
  expect(decodePng(await bytesOf(result)).width).toBe(40);
  const image = await second.call('GET', `/api/captures/${capture.id}/image`, key.key);
  expect(image.status).toBe(200);
  expect(decodePng(await bytesOf(image)).width).toBeGreaterThan(0);
});
