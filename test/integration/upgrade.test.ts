// An upgrade from the oldest release with monitors, captures and jobs (issue 29; changedetection.io #3621,
// where an upgrade emptied the watch list): the data that release made (test/fixtures/upgrade/, README.md
// there says how) opens under the current code with every record intact and usable; on SQLite, and on
// PostgreSQL from the oldest release that ran on it (a pg_dump). And the other way: a database migrated by
// a newer release is refused, not run (migrations are forward-only).
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startCli, type CliService } from '../helpers/durability-cli.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { databaseBytes } from '../helpers/monitor-secrets.js';
import { decodePng } from '../helpers/png.js';
import { describePostgres, freshDatabase } from '../helpers/postgres.js';
import { parsePdf } from '../helpers/pdf.js';
import { until } from '../helpers/until.js';
import { FIXTURE_TOKEN_HEADER, type UpgradeExpectations } from '../fixtures/upgrade/expectations.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/upgrade');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** A start with its browser, on a shared 2-core machine that other suites load too. */
const START_MS = 120_000;
const run = promisify(execFile);

const baseEnv = (dataDir: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  PAGEWATCH_PORT: '0',
  PAGEWATCH_HOST: '127.0.0.1',
  PAGEWATCH_DATA_DIR: dataDir,
  PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]',
  // The fixture's job rows are as old as the fixture: keep them past the default 30 days.
  PAGEWATCH_JOBS_RECORD_TTL_DAYS: '36500',
});

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A fixture's data, copied where the current service can open it: its settings, and what holds the token. */
interface Opened {
  env: Record<string, string>;
  /** The bytes of the database, to look for a secret in plain text. */
  databaseText(): Promise<Buffer>;
  close(): Promise<void>;
}

/** A copy of the fixture's dataDir (git keeps no file mode: the secrets key must be 0600 again). */
function copyDataDir(fixture: string): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-upgrade-'));
  cpSync(join(fixture, 'dataDir'), dataDir, { recursive: true });
  if (existsSync(join(dataDir, 'secret.key'))) chmodSync(join(dataDir, 'secret.key'), 0o600);
  return dataDir;
}

async function openSqlite(fixture: string): Promise<Opened> {
  const dataDir = copyDataDir(fixture);
  return {
    env: baseEnv(dataDir),
    databaseText: () => Promise.resolve(databaseBytes(dataDir)),
    close: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
  };
}

/** The fixture's pg_dump, loaded into a new database of the test server. */
async function openPostgres(fixture: string): Promise<Opened> {
  const dataDir = copyDataDir(fixture);
  const database = await freshDatabase();
  await run('psql', ['-v', 'ON_ERROR_STOP=1', '-q', '-f', join(fixture, 'pagewatch.sql'), database.url]);
  return {
    env: { ...baseEnv(dataDir), PAGEWATCH_DATABASE_URL: database.url },
    databaseText: async () => {
      const { stdout } = await run('pg_dump', ['--data-only', database.url], { maxBuffer: 64 << 20 });
      return Buffer.from(stdout);
    },
    close: async () => {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function describeUpgrade(name: string, open: (fixture: string) => Promise<Opened>): void {
  const FIXTURE = join(FIXTURES, name);
  const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as UpgradeExpectations;
  const [watched, other] = expected.monitors;
  let opened: Opened;
  let svc: CliService;
  let live: FixtureServer;

  const call = (method: string, path: string, body?: unknown, key = expected.key.key) =>
    fetch(svc.url + path, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call(method, path, body);
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const bytes = async (path: string) => {
    const res = await call('GET', path);
    expect(res.status, path).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  beforeAll(async () => {
    const expiry = expected.jobs.find((j) => j.view.result)!.view.result!.expiresAt;
    if (expiry <= new Date().toISOString())
      throw new Error(`the fixture's job results expired at ${expiry}: remake it (test/fixtures/upgrade/README.md)`);
    // The watched monitor's url names the port of the fixture server that release captured from: serving
    // it again there lets a capture now compare with the old captures (a new url would start a new baseline).
    live = await startFixtureServer({ port: Number(new URL(watched!.view.url).port) });
    live.route('/watched', (req, res) => {
      const sent = req.headers[FIXTURE_TOKEN_HEADER.toLowerCase()] === expected.token;
      res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' });
      res.end(`<body style="margin:0;background:${sent ? '#36c' : '#000'}"><h1>v3 of the watched page</h1></body>`);
    });
    opened = await open(FIXTURE);
    svc = await startCli(opened.env, START_MS);
  }, 3 * START_MS);

  afterAll(async () => {
    svc?.child.kill('SIGTERM');
    await svc?.exit;
    await live?.close();
    await opened?.close();
  });

  it('the key made by the old release authenticates', async () => {
    expect((await call('GET', '/api/jobs')).status).toBe(200);
    expect((await call('GET', '/api/jobs', undefined, `${expected.key.key.slice(0, -1)}x`)).status).toBe(401);
  });

  it('every job is listed with its status, and each result downloads byte-identical', async () => {
    const listed = await json<Page<{ id: string; status: string }>>('GET', '/api/jobs?limit=100');
    expect(listed.items.map((j) => j.id).sort()).toEqual(expected.jobs.map((j) => j.view.id).sort());
    for (const { view, resultSha256 } of expected.jobs) {
      const job = await json<typeof view>('GET', `/api/jobs/${view.id}`);
      expect(job).toMatchObject({
        id: view.id,
        kind: view.kind,
        status: view.status,
        createdAt: view.createdAt,
        finishedAt: view.finishedAt,
        attempts: view.attempts,
      });
      if (view.error) expect(job.error).toEqual(view.error);
      if (!resultSha256) continue;
      expect(job.result).toMatchObject({ contentType: view.result!.contentType, bytes: view.result!.bytes });
      const result = await bytes(`/api/jobs/${view.id}/result`);
      expect(sha256(result)).toBe(resultSha256);
      if (expected.database === 'sqlite')
        expect(result.equals(readFileSync(join(FIXTURE, 'dataDir/results', `${view.id}-1`)))).toBe(true);
      if (view.kind === 'pdf') expect((await parsePdf(result)).text).toContain('Upgrade fixture document');
      else expect(decodePng(result)).toMatchObject({ width: 200, height: 120 });
    }
  });

  it('every monitor is listed with its settings (a header kept in plain text is now masked)', async () => {
    const listed = await json<Page<{ id: string }>>('GET', '/api/monitors?limit=100');
    expect(listed.items.map((m) => m.id).sort()).toEqual(expected.monitors.map((m) => m.view.id).sort());
    for (const { view } of expected.monitors) {
      const monitor = await json<typeof view>('GET', `/api/monitors/${view.id}`);
      const { headers, ...capture } = view.capture;
      expect(monitor).toMatchObject({
        id: view.id,
        name: view.name,
        url: view.url,
        schedule: view.schedule,
        timezone: view.timezone,
        paused: view.paused,
        notify: view.notify,
        retention: view.retention,
        createdAt: view.createdAt,
        lastStatus: view.lastStatus,
        capture,
        // Migration 0009 moved monitors on the old default minChangeRatio (0.001) to the new one (0: off).
        diff: { ...view.diff, ...(view.diff.minChangeRatio === 0.001 && { minChangeRatio: 0 }) },
      });
      if (headers) expect(monitor.capture.headers).toEqual({ [FIXTURE_TOKEN_HEADER]: '••••' });
    }
    expect(other!.view).toMatchObject({ paused: true, timezone: 'Europe/Paris', retention: { keep: 5 } });
  });

  it('the header is sealed: it is nowhere in the database in plain text', async () => {
    expect((await opened.databaseText()).includes(expected.token)).toBe(false);
    // SQLite's oldest release kept it in plain text; PostgreSQL's already sealed it.
    if (expected.database === 'sqlite')
      expect(readFileSync(join(FIXTURE, 'dataDir/pagewatch.db')).includes(expected.token)).toBe(true);
  });

  it("every monitor's captures are listed with their images and diffs, byte-identical", async () => {
    for (const { view, captures } of expected.monitors) {
      const listed = await json<Page<(typeof captures)[number]>>('GET', `/api/monitors/${view.id}/captures?limit=100`);
      for (const old of captures) {
        const now = listed.items.find((c) => c.id === old.id);
        expect(now, `capture ${old.id}`).toMatchObject({
          status: old.status,
          takenAt: old.takenAt,
          width: old.width,
          height: old.height,
          changed: old.changed,
          diffPixels: old.diffPixels,
          baselineId: old.baselineId,
        });
        const image = await bytes(`/api/captures/${old.id}/image`);
        expect(sha256(image)).toBe(old.imageSha256);
        expect(decodePng(image)).toMatchObject({ width: old.width, height: old.height });
        if (old.diffSha256) expect(sha256(await bytes(`/api/captures/${old.id}/diff`))).toBe(old.diffSha256);
      }
    }
    expect(watched!.captures.some((c) => c.changed && c.diffSha256)).toBe(true); // the fixture has a diff
  });

  it('a monitor is usable: capture now compares with the old capture and sends the old header', async () => {
    const newestOld = watched!.captures[0]!; // newest first
    const list = async () =>
      (await json<Page<{ id: string }>>('GET', `/api/monitors/${watched!.view.id}/captures?limit=100`)).items;
    const before = (await list()).length;
    expect((await call('POST', `/api/monitors/${watched!.view.id}/run`)).status).toBe(202);
    // A capture of a small local page; 60 s is generous on a loaded 2-core machine.
    await until('the capture', async () => (await list()).length > before, 60_000, 200);
    const capture = await json<{
      id: string;
      status: string;
      changed: boolean;
      baselineId: string;
      diffUrl?: string;
    }>('GET', `/api/captures/${(await list())[0]!.id}`);
    expect(capture).toMatchObject({ status: 'succeeded', changed: true, baselineId: newestOld.id });
    expect(live.requests.some((r) => r.headers[FIXTURE_TOKEN_HEADER.toLowerCase()] === expected.token)).toBe(true);
    const diff = decodePng(await bytes(`/api/captures/${capture.id}/diff`));
    expect(diff).toMatchObject({ width: newestOld.width, height: newestOld.height });

    // Its settings change like any monitor's, and its header stays sealed through a PATCH.
    const renamed = await json<{ name: string; capture: { headers: Record<string, string> } }>(
      'PATCH',
      `/api/monitors/${watched!.view.id}`,
      { name: 'Renamed after the upgrade' },
    );
    expect(renamed).toMatchObject({
      name: 'Renamed after the upgrade',
      capture: { headers: { [FIXTURE_TOKEN_HEADER]: '••••' } },
    });
  });

  it('the paused monitor resumes on a new url (a new url starts a new baseline) and captures', async () => {
    const moved = await startFixtureServer();
    try {
      moved.route('/page', (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<h1>The page moved here after the upgrade</h1>');
      });
      const list = async () =>
        (await json<Page<{ id: string }>>('GET', `/api/monitors/${other!.view.id}/captures?limit=100`)).items;
      const patched = await json<{ url: string; paused: boolean }>('PATCH', `/api/monitors/${other!.view.id}`, {
        url: `${moved.url}/page`,
        paused: false,
      });
      expect(patched).toMatchObject({ url: `${moved.url}/page`, paused: false });
      const count = (await list()).length;
      expect((await call('POST', `/api/monitors/${other!.view.id}/run`)).status).toBe(202);
      // A capture of a small local page; 60 s is generous on a loaded 2-core machine.
      await until('the capture of the new url', async () => (await list()).length > count, 60_000, 200);
      const next = await json<{ status: string; baselineId: string | null; width: number }>(
        'GET',
        `/api/captures/${(await list())[0]!.id}`,
      );
      expect(next).toMatchObject({ status: 'succeeded', baselineId: null, width: 400 });
      expect(moved.requests.some((r) => r.path === '/page')).toBe(true);
    } finally {
      await moved.close();
    }
  });
}

describe('upgrade from 559ac2a, the oldest release with monitors, captures and jobs (SQLite)', () => {
  describeUpgrade('559ac2a', openSqlite);
});

describePostgres('upgrade from 5509e41, the oldest release on PostgreSQL (files in the database)', () => {
  describeUpgrade('5509e41-postgres', openPostgres);
});

describe('a database migrated by a newer Pagewatch', () => {
  it('is refused with what to do, by serve and migrate, and left as it was', async () => {
    const dataDir = copyDataDir(join(FIXTURES, '559ac2a'));
    try {
      const env = baseEnv(dataDir);
      await run(process.execPath, [CLI, 'migrate'], { env });
      const db = new Database(join(dataDir, 'pagewatch.db'));
      db.prepare('INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (?, ?, ?)').run(
        '9999_from_a_newer_release.sql',
        'f'.repeat(64),
        new Date().toISOString(),
      );
      const monitors = (db.prepare('SELECT count(*) AS n FROM monitors').get() as { n: number }).n;
      db.close();

      const refusal =
        /this database was migrated by a newer Pagewatch \(it has 9999_from_a_newer_release\.sql applied.*run that version or restore a backup/;
      await expect(startCli(env, START_MS)).rejects.toThrow(refusal);
      const migrate = await run(process.execPath, [CLI, 'migrate'], { env }).catch(
        (err: { code: number; stderr: string }) => err,
      );
      expect(migrate).toMatchObject({ code: 1, stderr: expect.stringMatching(refusal) as unknown });

      const after = new Database(join(dataDir, 'pagewatch.db'), { readonly: true });
      expect((after.prepare('SELECT count(*) AS n FROM monitors').get() as { n: number }).n).toBe(monitors);
      after.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
