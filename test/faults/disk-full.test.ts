// The disk of dataDir fills up (SQLite and stored files on a 30 MB tmpfs). Nothing is lost and nothing is
// left stuck: a job whose result finds no room fails that try with a reason a person can read and is tried
// again; when even its failure cannot be written, its lease runs out and it is taken up again. Submissions
// are refused with 507 and Retry-After, /ready says so before the disk is full, and no half-written file
// stays behind. Freeing space is all it takes to recover.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { mountSmallDisk, type SmallDisk } from '../helpers/small-disk.js';
import { until } from '../helpers/until.js';

const MIB = 1024 * 1024;
/** storage.minFreeBytes in these tests: the disk is "nearly full" under 4 MiB free. */
const MIN_FREE = 4 * MIB;
const LEASE_MS = 3000;

/** A 900 × 900 image of random pixels: a PNG of ~3 MiB that does not compress, larger than the room left. */
const NOISE = `<canvas id=c width=900 height=900></canvas><script>
const g = document.getElementById('c').getContext('2d'); const d = g.createImageData(900, 900);
for (let i = 0; i < d.data.length; i++) d.data[i] = i % 4 === 3 ? 255 : (Math.random() * 256) | 0;
g.putImageData(d, 0, 0);</script>`;
const noiseJob = (delay: number) => ({
  html: `<body style="margin:0">${NOISE}</body>`,
  viewport: { width: 900, height: 900 },
  delay,
  async: true,
});

interface JobRow {
  status: string;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  lease_expires_at: string | null;
}

async function onSmallDisk(disk: SmallDisk): Promise<TestService> {
  return startTestService({
    dataDir: join(disk.dir, 'data'),
    storage: { minFreeBytes: MIN_FREE },
    // A short lease, so a job let go is taken up again within seconds; tries enough for a disk that stays
    // full through several of them.
    jobs: { leaseMs: LEASE_MS, pollIntervalMs: 200, maxAttempts: 50 },
  });
}

function partialsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.partial'));
}

describe('disk full: below storage.minFreeBytes, and a result with no room', () => {
  let disk: SmallDisk;
  let service: TestService;
  let key: string;
  const row = (id: string) => service.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow;
  const jobStatus = async (id: string) =>
    ((await (await service.call('GET', `/api/jobs/${id}`, key)).json()) as { status: string }).status;

  beforeAll(async () => {
    disk = mountSmallDisk(30);
    service = await onSmallDisk(disk);
    key = service.createKey().key;
  });
  afterAll(async () => {
    await service?.close();
    disk?.unmount();
  });

  it('is ready with room; under the threshold /ready is 503, submissions 507; the job is retried with the reason', async () => {
    const ready = await fetch(`${service.url}/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: object }).checks).toMatchObject({ storage: 'ok' });

    // A job that renders for a while; meanwhile the disk fills to 1 MiB free: room for the database's
    // few pages, not for its 3 MiB result.
    const submitted = await service.call('POST', '/api/image', key, noiseJob(1500));
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    await until('the job to be running', () => row(id).status === 'running');
    disk.fill(1 * MIB);

    // Its try fails on the write with a reason a person can read, recorded, and it is queued again.
    const failed = await until(
      () => `the failed try to be recorded (row: ${JSON.stringify(row(id))})`,
      () => (row(id).error_code ? row(id) : false),
    );
    expect(failed).toMatchObject({ error_code: 'insufficient_storage' });
    expect(failed.error_message).toMatch(/^The disk is full \(the service's disk\): there was no room to store/);
    expect(['queued', 'running']).toContain(failed.status);

    // Reported before the disk is full: 1 MiB is free, under storage.minFreeBytes.
    const notReady = await fetch(`${service.url}/ready`);
    expect(notReady.status).toBe(503);
    expect((await errorOf(notReady)).details).toContainEqual({
      path: 'storage',
      message: expect.stringMatching(
        /^not usable: the disk of dataDir has [\d.]+ (KiB|MiB) free, under storage\.minFreeBytes \(4 MiB\)/,
      ) as unknown,
    });
    // New work is refused, plainly and with a time to come back; synchronous renders, which store nothing, go on.
    const refused = await service.call('POST', '/api/image', key, noiseJob(0));
    expect(refused.status).toBe(507);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await errorOf(refused)).toMatchObject({
      code: 'insufficient_storage',
      message: expect.stringMatching(
        /^The disk is nearly full \(the service's disk\), so nothing more can be stored now/,
      ) as unknown,
    });
    expect((await service.post('/api/image', { html: '<p>still rendering</p>' })).status).toBe(200);
    // The failed writes left no half-written file holding space.
    expect(partialsUnder(disk.dir)).toEqual([]);

    // Space freed: the job's next try stores its result; /ready and submissions are back.
    disk.free();
    await until('the job to succeed once space is freed', async () => (await jobStatus(id)) === 'succeeded', 60_000);
    expect(row(id).attempts).toBeGreaterThan(1);
    expect((await service.call('GET', `/api/jobs/${id}/result`, key)).status).toBe(200);
    await until('/ready to answer 200 again', async () => (await fetch(`${service.url}/ready`)).status === 200, 5000);
    const again = await service.call('POST', '/api/image', key, noiseJob(0));
    expect(again.status).toBe(202);
    const next = ((await again.json()) as { id: string }).id;
    await until('the new job to succeed', async () => (await jobStatus(next)) === 'succeeded', 60_000);
    expect(partialsUnder(disk.dir)).toEqual([]);
  });
});

describe('disk full to the last byte: not even the failure can be written', () => {
  let disk: SmallDisk;
  let service: TestService;
  let fixture: FixtureServer;
  let key: string;
  /** Answers the page a long job waits on; until then that job keeps the worker busy. */
  let releaseHeld: () => void = () => {};
  const held = new Promise<void>((done) => (releaseHeld = done));
  const row = (id: string) => service.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow;

  beforeAll(async () => {
    disk = mountSmallDisk(30);
    [service, fixture] = await Promise.all([onSmallDisk(disk), startFixtureServer()]);
    fixture.route('/held', (_req, res) => {
      void held.then(() => res.end('<p>released</p>'));
    });
    key = service.createKey().key;
  });
  afterAll(async () => {
    releaseHeld();
    await Promise.all([service?.close(), fixture?.close()]);
    disk?.unmount();
  });

  it('a job whose failure could not be recorded is let go at the end of its lease and taken up again', async () => {
    // Two jobs at once: one that waits on a page the test holds (the worker stays busy, renewing its
    // lease), and one whose 3 MiB result will find the disk full.
    const long = await service.call('POST', '/api/image', key, {
      html: `<img src="${fixture.url}/held">`,
      timeout: 110_000,
      async: true,
    });
    const submitted = await service.call('POST', '/api/image', key, noiseJob(1500));
    expect([long.status, submitted.status]).toEqual([202, 202]);
    const longId = ((await long.json()) as { id: string }).id;
    const { id } = (await submitted.json()) as { id: string };
    await until('both jobs to be running', () => service.worker.runningCount === 2 && row(id).status === 'running');
    disk.fill(0);

    // The worker is done with the try (its write failed, and so did writing that), yet the row still
    // says running: the state the job was stuck in.
    await until('the try to end', () => service.worker.runningCount === 1, 30_000);
    expect(row(id)).toMatchObject({ status: 'running', attempts: 1, error_code: null });
    // A submission now cannot even be written: 507 with the reason, not a 500.
    const refused = await service.call('POST', '/api/image', key, noiseJob(0));
    expect(refused.status).toBe(507);
    expect((await errorOf(refused)).code).toBe('insufficient_storage');

    // Room again at once, well before the lease ends. The worker still renews the long job's lease, but
    // not this one's, whose try is over: its lease runs out, it is taken up again and succeeds — while the
    // long job still runs (renewing every lease it held would keep this one `running` until then).
    disk.free();
    await until(
      () => `the job to be taken up again (row: ${JSON.stringify(row(id))})`,
      () => row(id).status === 'succeeded',
      // The lease (3 s), a poll, and a render of ~2 s, with room for a busy machine.
      4 * LEASE_MS + 20_000,
    );
    expect(row(id).attempts).toBe(2);
    expect(row(longId).status).toBe('running');
    expect(partialsUnder(disk.dir)).toEqual([]);

    releaseHeld();
    await until('the long job to succeed', () => row(longId).status === 'succeeded', 30_000);
  });
});
