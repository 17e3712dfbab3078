// The real service on PostgreSQL (database.url set, storage.driver fs), end to end: `pagewatch migrate`
// and `keys create` through the built CLI against the database, an async PDF job with a signed webhook
// (verified by the reference implementation), a synchronous render with the key, and a monitor's capture.
// Real HTTP, real Chromium, real PostgreSQL (a database of this file's own, dropped at the end).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readMigrations } from '../../src/stores/sql/migrate.js';
import type { CaptureView } from '../../src/monitors/view.js';
import { POSTGRES_MIGRATIONS } from '../contract/postgres-backend.js';
import { CLI } from '../helpers/durability-cli.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../helpers/postgres.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** The built CLI with only the database (and a data dir for its files) set. */
function cli(db: FreshDatabase, dataDir: string, args: string[]): Promise<{ code: number; stdout: string }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -p tsconfig.json\` (npm test builds first)`);
  const env = {
    PATH: process.env.PATH ?? '',
    PAGEWATCH_DATA_DIR: dataDir,
    PAGEWATCH_DATABASE_URL: db.url,
    PAGEWATCH_LOG_LEVEL: 'silent',
  };
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: stdout + stderr });
    });
  });
}

describePostgres('the service on PostgreSQL', () => {
  let db: FreshDatabase;
  let svc: TestService;
  let fixture: FixtureServer;
  let hooks: WebhookReceiver;
  let key: { id: string; key: string; webhookSecret: string };
  let sql: pg.Pool;

  beforeAll(async () => {
    db = await freshDatabase();
    sql = new pg.Pool({ connectionString: db.url, max: 1 });
    [fixture, hooks] = await Promise.all([startFixtureServer(), startWebhookReceiver()]);
    const migrated = await cli(db, '/nonexistent-pagewatch-data', ['migrate']);
    const every = readMigrations(POSTGRES_MIGRATIONS).map((m) => m.name);
    expect(every[0]).toBe('0001_init.sql');
    expect(migrated).toEqual({ code: 0, stdout: `applied: ${every.join(', ')}\n` });
    const created = await cli(db, '/nonexistent-pagewatch-data', ['keys', 'create', '--name', 'pg']);
    expect(created.code, created.stdout).toBe(0);
    const field = (name: string) => new RegExp(`^${name}:\\s+(\\S+)$`, 'm').exec(created.stdout)![1]!;
    key = { id: field('id'), key: field('key'), webhookSecret: field('webhook secret') };
    svc = await startTestService({
      database: { url: db.url },
      storage: { driver: 'fs' },
      jobs: { pollIntervalMs: 200 },
    });
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), fixture?.close(), hooks?.close()]);
    await sql?.end();
    await db?.drop();
  });

  it('runs on PostgreSQL: the CLI migrated it, the key is there, and there is no SQLite handle', async () => {
    expect(svc.databaseKind).toBe('postgres');
    expect(() => svc.db).toThrow('no raw SQLite handle on PostgreSQL');
    expect((await cli(db, '/nonexistent-pagewatch-data', ['migrate'])).stdout).toBe('database is up to date\n');
    const { rows } = await sql.query<{ name: string }>('SELECT name FROM api_keys WHERE id = $1', [key.id]);
    expect(rows).toEqual([{ name: 'pg' }]);
  });

  it('an async PDF job renders, its webhook is signed, and the job is a row in PostgreSQL', async () => {
    const res = await svc.call('POST', '/api/pdf', key.key, {
      url: `${fixture.url}/invoice`,
      async: true,
      webhookUrl: hooks.url,
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const [hit] = await hooks.waitForHits(1, 60_000);
    const event = verifyHit(key.webhookSecret, hit!);
    expect(event).toMatchObject({ type: 'job.succeeded', data: { jobId: id, status: 'succeeded', attempts: 1 } });
    const file = await svc.call('GET', `/api/jobs/${id}/result`, key.key);
    expect(file.status).toBe(200);
    expect((await parsePdf(await bytesOf(file))).text).toContain('INVOICE-TEST-MARKER');
    const { rows } = await sql.query('SELECT status, attempts, result_bytes FROM jobs WHERE id = $1', [id]);
    expect(rows).toEqual([{ status: 'succeeded', attempts: 1, result_bytes: expect.any(String) as unknown }]);
  });

  it('a synchronous render with the key answers with the PDF, and marks the key used', async () => {
    const res = await svc.call('POST', '/api/pdf', key.key, { url: `${fixture.url}/invoice` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect((await parsePdf(await bytesOf(res))).text).toContain('INVOICE-TEST-MARKER');
    const listed = await cli(db, '/nonexistent-pagewatch-data', ['keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`^${key.id}\\t.*\\tpg\\tactive\\t.*last used 20`, 'm'));
  });

  it("a monitor's capture runs through the queue and is recorded", async () => {
    const created = await svc.call('POST', '/api/monitors', key.key, {
      url: `${fixture.url}/invoice`,
      schedule: '0 0 1 1 *',
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await svc.call('POST', `/api/monitors/${id}/run`, key.key)).status).toBe(202);
    const capture = await until(
      'the monitor to record its capture',
      async () => {
        const page = (await (await svc.call('GET', `/api/monitors/${id}/captures`, key.key)).json()) as {
          items: CaptureView[];
        };
        return page.items[0];
      },
      60_000,
      200,
    );
    expect(capture).toMatchObject({ status: 'succeeded', reason: 'manual' });
    const { rows } = await sql.query('SELECT status, stored_bytes FROM captures WHERE monitor_id = $1', [id]);
    expect(rows).toHaveLength(1);
  });
});
