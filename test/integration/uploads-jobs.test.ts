// Async uploads ("async": true in the options): the files are kept in the file store under a key of the
// job (the row holds only a marker), survive a restart of the service before the job runs, and are
// removed when the job ends — succeeded, failed or canceled.
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceOn, type DurableService } from '../helpers/durability-service.js';
import { parsePdf } from '../helpers/pdf.js';
import { until } from '../helpers/until.js';
import { solidPng, uploadForm } from '../helpers/upload.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-uploads-jobs-'));
const services: DurableService[] = [];
afterAll(async () => {
  for (const s of services) await s.stop().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

const OPTIONS = { jobs: { pollIntervalMs: 100 } };
const SITE = {
  'index.html':
    '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="css/s.css"></head>' +
    '<body><h1>ASYNC UPLOAD</h1><p id="o"></p><img src="img/dot.png"><script src="js/a.js"></script></body></html>',
  'css/s.css': 'h1 { color: rgb(200, 0, 0) }',
  'js/a.js': "document.getElementById('o').textContent = 'SCRIPT RAN';",
  'img/dot.png': solidPng(4, 4, [0, 0, 255]),
};

async function submit(svc: DurableService, key: string, options: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${svc.url}/api/pdf`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: uploadForm(SITE, { ...options, async: true }),
  });
  if (res.status !== 202) throw new Error(`async upload → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function status(svc: DurableService, key: string, id: string): Promise<string> {
  return ((await (await svc.call('GET', `/api/jobs/${id}`, key)).json()) as { status: string }).status;
}

const uploadFile = (id: string) => join(dataDir, 'results', `${id}-upload`);

describe('async uploads', () => {
  it('survive a restart before the job runs, render from the store, and are removed once the job succeeds', async () => {
    // An api-only node: the job is queued and nothing runs it.
    const first = await startServiceOn(dataDir, { ...OPTIONS, role: 'api' });
    services.push(first);
    const key = first.createKey('uploads').key;
    const id = await submit(first, key, {});
    expect(await status(first, key, id)).toBe('queued');
    expect(existsSync(uploadFile(id))).toBe(true);
    // The row keeps a marker, not the bytes.
    const row = first.db.prepare('SELECT request FROM jobs WHERE id = ?').get(id) as { request: string };
    expect((JSON.parse(row.request) as { upload: unknown }).upload).toMatchObject({ files: 4 });
    expect(row.request).not.toContain('SCRIPT RAN');
    await first.stop();

    const second = await startServiceOn(dataDir, OPTIONS);
    services.push(second);
    await until('the job to succeed', async () => (await status(second, key, id)) === 'succeeded', 30_000);
    const res = await second.call('GET', `/api/jobs/${id}/result`, key);
    expect(res.status).toBe(200);
    const pdf = await parsePdf(Buffer.from(await res.arrayBuffer()));
    expect(pdf.text).toContain('ASYNC UPLOAD');
    expect(pdf.text).toContain('SCRIPT RAN');
    expect(existsSync(uploadFile(id))).toBe(false);
    expect(readdirSync(join(dataDir, 'results'))).toEqual([`${id}-1`]);
    await second.stop();
  });

  it('are removed when the job fails, and when it is canceled', async () => {
    const svc = await startServiceOn(dataDir, { ...OPTIONS, role: 'api' });
    services.push(svc);
    const key = svc.createKey('cancel').key;
    const canceled = await submit(svc, key, {});
    expect(existsSync(uploadFile(canceled))).toBe(true);
    expect((await svc.call('DELETE', `/api/jobs/${canceled}`, key)).status).toBe(200);
    expect(existsSync(uploadFile(canceled))).toBe(false);
    const failing = await submit(svc, key, { waitForSelector: '#never', timeout: 1000 });
    await svc.stop();

    const worker = await startServiceOn(dataDir, OPTIONS);
    services.push(worker);
    await until('the job to fail', async () => (await status(worker, key, failing)) === 'failed', 30_000);
    expect(existsSync(uploadFile(failing))).toBe(false);
    await worker.stop();
  });

  it("the sweeper's orphan pass removes an old upload no job refers to, and keeps a queued job's", async () => {
    const api = await startServiceOn(dataDir, { ...OPTIONS, role: 'api' });
    services.push(api);
    const key = api.createKey('orphans').key;
    const queued = await submit(api, key, {});
    await api.stop();
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(uploadFile(queued), twoHoursAgo, twoHoursAgo); // old enough to be judged
    const dead = uploadFile('job_00000000000000000000');
    writeFileSync(dead, 'left by a crash between the file and its row');
    utimesSync(dead, twoHoursAgo, twoHoursAgo);

    const svc = await startServiceOn(dataDir, { jobs: { pollIntervalMs: 100, sweepIntervalMs: 100 } });
    services.push(svc);
    await until('the orphaned upload removed', () => !existsSync(dead), 30_000);
    // The queued job's upload was not taken for an orphan: the job renders from it.
    await until('the job to end', async () => ['succeeded', 'failed'].includes(await status(svc, key, queued)), 30_000);
    expect(await status(svc, key, queued)).toBe('succeeded');
    await svc.stop();
  });
});
