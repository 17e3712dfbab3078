// The database's disk fills up (storage.driver=database: results are kept in PostgreSQL). The service's
// own database is given a tablespace of its own on a 30 MB tmpfs, on the shared server; that database and
// tablespace are dropped at the end. PostgreSQL refuses the writes with 53100 disk_full ("could not extend
// file"): a job whose result finds no room fails that try with the reason and is tried again, submissions
// that cannot be written answer 507, never 500, and freeing space is all it takes to recover.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, POSTGRES_URL, withDatabase } from '../helpers/postgres.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { mountSmallDisk, type SmallDisk } from '../helpers/small-disk.js';
import { until } from '../helpers/until.js';

const MIB = 1024 * 1024;

/** A 900 × 900 image of random pixels: a PNG of ~3 MiB that does not compress. */
const NOISE = `<canvas id=c width=900 height=900></canvas><script>
const g = document.getElementById('c').getContext('2d'); const d = g.createImageData(900, 900);
for (let i = 0; i < d.data.length; i++) d.data[i] = i % 4 === 3 ? 255 : (Math.random() * 256) | 0;
g.putImageData(d, 0, 0);</script>`;

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(POSTGRES_URL, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describePostgres('disk full under PostgreSQL (storage.driver=database)', () => {
  const name = `pagewatch_t_full_${randomBytes(5).toString('hex')}`;
  let disk: SmallDisk;
  let service: TestService;
  let sql: pg.Pool;
  let key: string;
  const row = async (id: string) =>
    (
      await sql.query<{ status: string; attempts: number; error_code: string | null; error_message: string | null }>(
        'SELECT status, attempts, error_code, error_message FROM jobs WHERE id = $1',
        [id],
      )
    ).rows[0]!;
  const jobStatus = async (id: string) =>
    ((await (await service.call('GET', `/api/jobs/${id}`, key)).json()) as { status: string }).status;

  beforeAll(async () => {
    disk = mountSmallDisk(30);
    // The tablespace's directory must belong to the server's user; the filler stays root's, beside it.
    const location = join(disk.dir, 'tablespace');
    mkdirSync(location);
    execFileSync('chown', ['postgres:postgres', location]);
    await onServer(`CREATE TABLESPACE ${name} LOCATION '${location}'`);
    await onServer(`CREATE DATABASE ${name} TABLESPACE ${name}`);
    const url = withDatabase(POSTGRES_URL, name);
    service = await startTestService({
      database: { url },
      storage: { driver: 'database' },
      jobs: { leaseMs: 3000, pollIntervalMs: 200, maxAttempts: 50 },
    });
    sql = new pg.Pool({ connectionString: url, max: 1 });
    key = (await service.backend.stores.keys.create('full')).key;
  });
  afterAll(async () => {
    await sql?.end();
    await service?.close();
    await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await onServer(`DROP TABLESPACE IF EXISTS ${name}`).catch(() => undefined);
    disk?.unmount();
  });

  it('a result with no room fails its try with the reason; submissions answer 507; all recovers once freed', async () => {
    const submitted = await service.call('POST', '/api/image', key, {
      html: `<body style="margin:0">${NOISE}</body>`,
      viewport: { width: 900, height: 900 },
      delay: 1500,
      async: true,
    });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    await until('the job to be running', async () => (await row(id)).status === 'running');
    disk.fill(1 * MIB);

    let last: Awaited<ReturnType<typeof row>> | undefined;
    const failed = await until(
      () => `the failed try to be recorded (row: ${JSON.stringify(last)})`,
      async () => ((last = await row(id)).error_code ? last : false),
    );
    expect(failed).toMatchObject({ error_code: 'insufficient_storage' });
    expect(failed.error_message).toMatch(/^The disk is full \(the database's disk\): there was no room to store/);

    // Nothing left at all: a submission, once its row finds no room, is refused with 507 — never a 500.
    disk.fill(0);
    // A row may still fit in a page with room, so submit until one needs a new page (a few do).
    let refused: Response | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await service.call('POST', '/api/image', key, { html: `<p>${'x'.repeat(2000)}</p>`, async: true });
      if (res.status !== 202) refused = res;
    }
    expect(refused?.status).toBe(507);
    expect(refused!.headers.get('retry-after')).toBe('60');
    expect(await errorOf(refused!)).toMatchObject({
      code: 'insufficient_storage',
      message: expect.stringMatching(/^The disk is full \(the database's disk\)/) as unknown,
    });

    disk.free();
    await until('the job to succeed once space is freed', async () => (await jobStatus(id)) === 'succeeded', 60_000);
    expect((await row(id)).attempts).toBeGreaterThan(1);
    const result = await service.call('GET', `/api/jobs/${id}/result`, key);
    expect(result.status).toBe(200);
    expect((await result.arrayBuffer()).byteLength).toBeGreaterThan(2 * MIB);
    const again = await service.call('POST', '/api/image', key, { html: '<p>room again</p>', async: true });
    expect(again.status).toBe(202);
  });
});
