// `pagewatch backup` and `pagewatch restore` (issue 29, docs/operations.md "Backups and upgrades"): snapshots
// taken by the real CLI while the service writes jobs, results, monitors and captures restore into fresh
// data directories on which the service starts with nothing lost — every succeeded job's result and every
// capture's images byte-identical, the key working, sealed secrets still decrypting — and a damaged
// snapshot, existing data and a newer schema are refused before anything is touched.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, startCli, type CliService } from '../helpers/durability-cli.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { runCli } from '../helpers/keys-cli.js';
import { mountSmallDisk } from '../helpers/small-disk.js';
import {
  addPrivatePage,
  lastSeen,
  newSecrets,
  runAndWait,
  secretCapture,
  YEARLY,
  type Secrets,
} from '../helpers/monitor-secrets.js';
import { decodePng } from '../helpers/png.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { until } from '../helpers/until.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** A start with its browser, on a shared 2-core machine that other suites load too. */
const START_MS = 120_000;

interface Snapshot {
  dir: string;
  /** Stored files the backup copied after the database (written while it ran). */
  secondPass: number;
}

interface Manifest {
  database: { migrations: { name: string; checksum: string }[] };
  files: { path: string; bytes: number; sha256: string }[];
}

/** What the database of a snapshot or a data directory says exists, and the files it names. */
function recordsOf(dataDir: string) {
  const db = new Database(join(dataDir, 'pagewatch.db'), { readonly: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    const results = db
      .prepare(
        "SELECT id, result_key AS key FROM jobs WHERE status = 'succeeded' AND result_key IS NOT NULL AND result_removed_at IS NULL",
      )
      .all() as { id: string; key: string }[];
    const captures = db.prepare('SELECT id, image_key, diff_key FROM captures').all() as {
      id: string;
      image_key: string | null;
      diff_key: string | null;
    }[];
    const monitors = (db.prepare('SELECT id FROM monitors').all() as { id: string }[]).map((m) => m.id);
    return { integrity, results, captures, monitors };
  } finally {
    db.close();
  }
}

describe('pagewatch backup while the service writes, then restore', () => {
  let work: string;
  let dataDir: string;
  let fx: FixtureServer;
  let svc: CliService | undefined;
  let key: IssuedKey;
  let secrets: Secrets;
  let secretMonitor: string;
  const snapshots: Snapshot[] = [];
  const env = (dir: string) => ({
    PATH: process.env.PATH ?? '',
    PAGEWATCH_PORT: '0',
    PAGEWATCH_HOST: '127.0.0.1',
    PAGEWATCH_DATA_DIR: dir,
    PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]',
    PAGEWATCH_JOBS_POLL_INTERVAL_MS: '100',
    PAGEWATCH_RATE_LIMIT_PER_KEY_PER_MINUTE: '100000',
  });
  const callOn = (service: CliService) => (method: string, path: string, k: string, body?: unknown) =>
    fetch(service.url + path, {
      method,
      headers: { Authorization: `Bearer ${k}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pagewatch-backup-'));
    dataDir = join(work, 'data');
    fx = await startFixtureServer();
    addPrivatePage(fx);
    let served = 0;
    fx.route('/changing', (_req, res) => {
      served++;
      res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' });
      res.end(`<body style="background:hsl(${(served * 47) % 360},60%,50%)"><h1>Version number ${served}</h1></body>`);
    });
    key = { ...(await createKeyWithCli(env(dataDir), 'backup')), name: 'backup' };
    svc = await startCli(env(dataDir), START_MS);
    secrets = newSecrets();
    const call = callOn(svc);
    const created = await call('POST', '/api/monitors', key.key, {
      url: `${fx.url}/private`,
      schedule: YEARLY,
      capture: secretCapture(secrets),
    });
    expect(created.status).toBe(201);
    secretMonitor = ((await created.json()) as { id: string }).id;
    expect((await runAndWait(call, key, secretMonitor)).status).toBe('succeeded');
  }, 3 * START_MS);

  afterAll(async () => {
    if (svc && svc.child.exitCode === null) {
      svc.child.kill('SIGTERM');
      await svc.exit;
    }
    await fx?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('snapshots taken during a stream of jobs and captures hold every file their rows name', async () => {
    const call = callOn(svc!);
    let writing = true;
    let jobs = 0;
    let captures = 0;
    // Two job writers and one monitor writer, each waiting for its last write to end before the next:
    // results and captures land all the time the backups run.
    const jobWriter = async (w: number) => {
      for (let n = 0; writing; n++) {
        const kind = n % 2 ? 'pdf' : 'image';
        const res = await call('POST', `/api/${kind}`, key.key, {
          html: `<h1>writer ${w}, job ${n}</h1><p>${'x'.repeat(n)}</p>`,
          async: true,
          ...(kind === 'image' && { viewport: { width: 200, height: 100 } }),
        });
        if (res.status !== 202) throw new Error(`submit: ${res.status} ${await res.text()}`);
        const { id } = (await res.json()) as { id: string };
        await until(
          `job ${id} to end`,
          async () => {
            const job = (await (await call('GET', `/api/jobs/${id}`, key.key)).json()) as { status: string };
            return job.status === 'succeeded' || job.status === 'failed';
          },
          60_000,
          50,
        );
        jobs++;
      }
    };
    const monitorWriter = async () => {
      while (writing) {
        const res = await call('POST', '/api/monitors', key.key, {
          url: `${fx.url}/changing`,
          schedule: YEARLY,
          capture: { viewport: { width: 240, height: 120 } },
          diff: { confirm: false },
        });
        const { id } = (await res.json()) as { id: string };
        for (let i = 0; i < 2 && writing; i++) await runAndWait(call, key, id);
        captures += 2;
      }
    };
    const writers = Promise.all([jobWriter(1), jobWriter(2), monitorWriter()]);
    try {
      // Enough files first that copying them (pass 1) takes a while, with writes landing during it.
      await until(
        () => `40 jobs (${jobs} so far)`,
        () => jobs >= 40,
        120_000,
        100,
      );
      // Until three snapshots are taken and one of them copied files written while its database was copied
      // (the case pass 2 is for); eight backups at most.
      for (let i = 0; snapshots.length < 3 || !snapshots.some((s) => s.secondPass > 0); i++) {
        if (i === 8) throw new Error(`no backup of 8 saw a file written while it ran: ${JSON.stringify(snapshots)}`);
        const dir = join(work, `snapshot-${i}`);
        const out = await runCli(dataDir, ['backup', '--out', dir]);
        expect(out.code, out.stderr).toBe(0);
        const secondPass = Number(
          /stored files: \d+ \((\d+) written while the database was copied\)/.exec(out.stdout)?.[1],
        );
        expect(secondPass, out.stdout).toBeGreaterThanOrEqual(0);
        snapshots.push({ dir, secondPass });
      }
    } finally {
      writing = false;
      await writers;
    }
    expect(jobs + captures).toBeGreaterThan(30);

    for (const { dir } of snapshots) {
      // Private: it holds the secrets key.
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'pagewatch.db')).mode & 0o777).toBe(0o600);
      expect(existsSync(`${dir}.partial`)).toBe(false);
      const records = recordsOf(dir);
      expect(records.integrity).toBe('ok');
      expect(records.results.length).toBeGreaterThan(0);
      for (const job of records.results) {
        const file = join(dir, 'results', job.key);
        expect(existsSync(file), `result of ${job.id} in ${dir}`).toBe(true);
        expect(readFileSync(file).equals(readFileSync(join(dataDir, 'results', job.key)))).toBe(true);
      }
      for (const c of records.captures)
        for (const k of [c.image_key, c.diff_key].filter((k): k is string => k !== null))
          expect(existsSync(join(dir, 'captures', k)), `${k} of capture ${c.id} in ${dir}`).toBe(true);
    }
  }, 300_000); // a stream of real renders and captures on a shared 2-core machine

  it('each snapshot restores into a new dataDir, and the service starts on it with nothing lost', async () => {
    svc!.child.kill('SIGTERM');
    await svc!.exit;
    for (const [i, { dir }] of snapshots.entries()) {
      const restored = join(work, `restored-${i}`);
      const out = await runCli(restored, ['restore', dir]);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain(`into ${restored}`);
      const records = recordsOf(restored);
      expect(records.integrity).toBe('ok');
      expect(records.monitors).toContain(secretMonitor);

      const service = await startCli(env(restored), START_MS);
      try {
        const call = callOn(service);
        if (i === 0) {
          // A restore under a running service would move its data from under it: refused, --force or not.
          const underIt = await runCli(restored, ['restore', dir, '--force']);
          expect(underIt.code).toBe(1);
          expect(underIt.stderr).toMatch(
            /a service is running on .*restored-0 \(pid \d+ on .*\); nothing was restored/,
          );
        }
        const listed = (await (await call('GET', '/api/jobs?limit=100', key.key)).json()) as { items: unknown[] };
        expect(listed.items.length).toBeGreaterThan(0); // the key works
        for (const job of records.results) {
          const res = await call('GET', `/api/jobs/${job.id}/result`, key.key);
          expect(res.status, `result of ${job.id}`).toBe(200);
          const bytes = Buffer.from(await res.arrayBuffer());
          expect(sha256(bytes)).toBe(sha256(readFileSync(join(dataDir, 'results', job.key))));
        }
        for (const c of records.captures.filter((c) => c.image_key)) {
          const res = await call('GET', `/api/captures/${c.id}/image`, key.key);
          expect(res.status, `image of ${c.id}`).toBe(200);
          expect(decodePng(Buffer.from(await res.arrayBuffer())).width).toBeGreaterThan(0);
          if (c.diff_key) expect((await call('GET', `/api/captures/${c.id}/diff`, key.key)).status).toBe(200);
        }
        // The sealed secrets decrypt with the restored key: the capture sends them.
        const before = fx.requests.length;
        expect((await runAndWait(call, key, secretMonitor)).status).toBe('succeeded');
        expect(fx.requests.length).toBeGreaterThan(before);
        expect(lastSeen(fx)).toEqual({ header: secrets.header, cookie: secrets.cookie, password: secrets.password });
      } finally {
        service.child.kill('SIGTERM');
        await service.exit;
      }
    }
  }, 300_000); // a stream of real renders and captures on a shared 2-core machine

  it('a damaged snapshot is refused, naming the file, and nothing is restored', async () => {
    const { dir } = snapshots[0]!;
    for (const victim of ['pagewatch.db', `results/${readdirSync(join(dir, 'results'))[0]}`, 'secret.key']) {
      const damaged = join(work, 'damaged');
      rmSync(damaged, { recursive: true, force: true });
      cpSync(dir, damaged, { recursive: true });
      const file = join(damaged, victim);
      const bytes = readFileSync(file);
      const middle = bytes.length >> 1;
      bytes[middle] = bytes[middle]! ^ 0x01; // one bit, in the middle
      writeFileSync(file, bytes);
      const target = join(work, 'never');
      const out = await runCli(target, ['restore', damaged]);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`the snapshot is damaged: ${victim} is not what was backed up`);
      expect(out.stderr).toContain('nothing was restored');
      expect(existsSync(target)).toBe(false);
    }
    const out = await runCli(join(work, 'never'), ['restore', join(work, 'no-such-snapshot')]);
    expect(out).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('has no manifest.json: it is not a snapshot') as unknown,
    });

    // A manifest is read as a stranger's: no path out of the snapshot, no format this version does not know.
    const crafted = join(work, 'crafted');
    cpSync(dir, crafted, { recursive: true });
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8');
    const outside = JSON.parse(manifest) as Manifest;
    outside.files.push({ path: 'results/../../outside', bytes: 0, sha256: sha256(Buffer.alloc(0)) });
    writeFileSync(join(crafted, 'manifest.json'), JSON.stringify(outside));
    const escaped = await runCli(join(work, 'never'), ['restore', crafted]);
    expect(escaped.code).toBe(1);
    expect(escaped.stderr).toContain('the manifest lists "results/../../outside", which no snapshot holds');
    for (const [version, refused] of [
      [1, false],
      [2, true],
    ] as const) {
      writeFileSync(
        join(crafted, 'manifest.json'),
        manifest.replace('"formatVersion": 1', `"formatVersion": ${version}`),
      );
      const read = await runCli(join(work, `format-${version}`), ['restore', crafted]);
      expect(read.code, read.stderr).toBe(refused ? 1 : 0);
      if (refused) expect(read.stderr).toContain('the snapshot is of format 2, made by a newer Pagewatch');
    }
    expect(existsSync(join(work, 'never'))).toBe(false);
  });

  it('restore into an existing dataDir that holds no data moves the entries in, keeping the rest', async () => {
    const target = join(work, 'volume');
    mkdirSync(target);
    writeFileSync(join(target, 'lost+found'), 'not ours');
    const out = await runCli(target, ['restore', snapshots[0]!.dir]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).not.toContain('moved aside');
    expect(readFileSync(join(target, 'lost+found'), 'utf8')).toBe('not ours');
    expect(recordsOf(target).integrity).toBe('ok');
    expect(readdirSync(work).filter((n) => n.startsWith('volume.'))).toEqual([]); // no staging left
  });

  // Mounting a filesystem needs root, which CI has (its fault suite mounts one too).
  it.runIf(process.getuid?.() === 0)(
    'restore into a mount point (a volume: not renamable) stages and puts the old data aside inside it',
    async () => {
      const volume = mountSmallDisk(64);
      try {
        const first = await runCli(volume.dir, ['restore', snapshots[0]!.dir]);
        expect(first.code, first.stderr).toBe(0);
        expect(recordsOf(volume.dir).integrity).toBe('ok');
        const before = readFileSync(join(volume.dir, 'pagewatch.db'));

        const forced = await runCli(volume.dir, ['restore', snapshots[1]!.dir, '--force']);
        expect(forced.code, forced.stderr).toBe(0);
        const aside = readdirSync(volume.dir).filter((name) => name.startsWith('before-restore-'));
        expect(aside).toHaveLength(1);
        expect(readFileSync(join(volume.dir, aside[0]!, 'pagewatch.db')).equals(before)).toBe(true);
        expect(readdirSync(join(volume.dir, aside[0]!)).sort()).toEqual([
          'captures',
          'pagewatch.db',
          'results',
          'secret.key',
        ]);
        const manifest = JSON.parse(readFileSync(join(snapshots[1]!.dir, 'manifest.json'), 'utf8')) as Manifest;
        const db = manifest.files.find((f) => f.path === 'pagewatch.db')!;
        expect(sha256(readFileSync(join(volume.dir, 'pagewatch.db')))).toBe(db.sha256);
        expect(readdirSync(volume.dir).filter((name) => name.startsWith('.restoring-'))).toEqual([]);
      } finally {
        volume.unmount();
      }
    },
  );

  it('restore refuses a dataDir that holds data; --force moves it aside whole, deleting nothing', async () => {
    const target = join(work, 'restored-0');
    const before = readFileSync(join(target, 'pagewatch.db'));
    const refused = await runCli(target, ['restore', snapshots[1]!.dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${target} already holds data (pagewatch.db, secret.key, results, captures)`);
    expect(readFileSync(join(target, 'pagewatch.db')).equals(before)).toBe(true);

    // A service runs while its node heartbeat is under 15 s old. The edge is tested 5 s either side of it:
    // the restore command starts as a child process, and that takes up to seconds on a loaded machine.
    const nodes = new Database(join(target, 'pagewatch.db'));
    const beat = nodes.prepare(
      "INSERT INTO nodes (id, role, host, pid, version, started_at, heartbeat_at) VALUES ('n1', 'all', 'h', 42, 'v', ?, ?)",
    );
    const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
    beat.run(ago(60), ago(10));
    const running = await runCli(target, ['restore', snapshots[1]!.dir, '--force']);
    expect(running.code).toBe(1);
    expect(running.stderr).toContain('a service is running on');
    expect(running.stderr).toContain('pid 42 on h');
    nodes.prepare('UPDATE nodes SET heartbeat_at = ? WHERE id = ?').run(ago(20), 'n1');
    nodes.close();
    const stale = readFileSync(join(target, 'pagewatch.db'));

    const forced = await runCli(target, ['restore', snapshots[1]!.dir, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const aside = readdirSync(work).filter((name) => name.startsWith('restored-0.before-restore-'));
    expect(aside).toHaveLength(1);
    expect(forced.stdout).toContain(join(work, aside[0]!));
    expect(readFileSync(join(work, aside[0]!, 'pagewatch.db')).equals(stale)).toBe(true);
    expect(stale.equals(before)).toBe(false); // the heartbeat rows went with it
    const manifest = JSON.parse(readFileSync(join(snapshots[1]!.dir, 'manifest.json'), 'utf8')) as Manifest;
    const db = manifest.files.find((f) => f.path === 'pagewatch.db')!;
    expect(sha256(readFileSync(join(target, 'pagewatch.db')))).toBe(db.sha256);
    expect(readdirSync(work).some((name) => name.includes('.restoring-'))).toBe(false);
  });

  it('a snapshot of a newer schema is refused (migrations are forward-only)', async () => {
    const newer = join(work, 'newer');
    cpSync(snapshots[0]!.dir, newer, { recursive: true });
    const db = new Database(join(newer, 'pagewatch.db'));
    db.prepare('INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (?, ?, ?)').run(
      '9999_newer.sql',
      'f'.repeat(64),
      new Date().toISOString(),
    );
    db.close();
    // A consistent snapshot, as a newer Pagewatch would write it: its manifest lists what the database holds.
    const manifest = JSON.parse(readFileSync(join(newer, 'manifest.json'), 'utf8')) as Manifest;
    manifest.database.migrations.push({ name: '9999_newer.sql', checksum: 'f'.repeat(64) });
    const entry = manifest.files.find((f) => f.path === 'pagewatch.db')!;
    const bytes = readFileSync(join(newer, 'pagewatch.db'));
    Object.assign(entry, { bytes: bytes.length, sha256: sha256(bytes) });
    writeFileSync(join(newer, 'manifest.json'), JSON.stringify(manifest));
    const target = join(work, 'never-newer');
    const out = await runCli(target, ['restore', newer]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('this database was migrated by a newer Pagewatch (it has 9999_newer.sql applied');
    expect(existsSync(target)).toBe(false);
  });

  it('backup refuses a DIR that exists, and a dataDir with no database; usage errors exit 2', async () => {
    const exists = await runCli(dataDir, ['backup', '--out', snapshots[0]!.dir]);
    expect(exists).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('exists: a snapshot goes into a new directory') as unknown,
    });
    const empty = await runCli(join(work, 'empty'), ['backup', '--out', join(work, 'from-empty')]);
    expect(empty).toMatchObject({ code: 1, stderr: expect.stringContaining('there is no database at') as unknown });
    expect(existsSync(join(work, 'empty'))).toBe(false); // not created by asking
    // What a backup that did not finish left (DIR.partial) is no snapshot, and the next backup replaces it.
    const unfinished = join(work, 'unfinished');
    mkdirSync(`${unfinished}.partial`);
    writeFileSync(join(`${unfinished}.partial`, 'pagewatch.db'), 'half');
    const notYet = await runCli(join(work, 'never'), ['restore', unfinished]);
    expect(notYet.stderr).toContain('(unfinished.partial is a backup that did not finish)');
    const fromPartial = await runCli(join(work, 'never'), ['restore', `${unfinished}.partial`]);
    expect(fromPartial.stderr).toContain('has no manifest.json: it is not a snapshot');
    const again = await runCli(dataDir, ['backup', '--out', unfinished]);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(`${unfinished}.partial`)).toBe(false);
    expect(readFileSync(join(unfinished, 'pagewatch.db')).toString('utf8', 0, 15)).toBe('SQLite format 3');

    expect((await runCli(dataDir, ['backup'])).code).toBe(2);
    expect((await runCli(dataDir, ['restore'])).code).toBe(2);
  });
});

describe('pagewatch backup on PostgreSQL', () => {
  it('prints the pg_dump and pg_restore commands for the configured database, without its password', async () => {
    const work = mkdtempSync(join(tmpdir(), 'pagewatch-backup-pg-'));
    try {
      const settings = {
        PAGEWATCH_DATABASE_URL: 'postgres://watcher:hunter2-secret@db.internal:6543/pagewatch_prod?sslmode=require',
        PAGEWATCH_STORAGE_DRIVER: 'fs',
      };
      const dataDir = join(work, 'data');
      const result = join(dataDir, 'results', 'job_x-1');
      cpSync(import.meta.filename, result); // one stored file: the file store is snapshotted
      const out = await runCli(dataDir, ['backup', '--out', join(work, 'snap')], settings);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout + out.stderr).not.toContain('hunter2');
      const url = "'postgres://watcher@db.internal:6543/pagewatch_prod?sslmode=require'";
      expect(out.stdout).toContain(`pg_dump --format=custom --file='pagewatch.dump' ${url}`);
      expect(out.stdout).toContain(`pg_restore --clean --if-exists --no-owner --dbname=${url} 'pagewatch.dump'`);
      expect(out.stdout).toContain('stored files: 1');
      const manifest = JSON.parse(readFileSync(join(work, 'snap', 'manifest.json'), 'utf8')) as {
        database: { kind: string; url: string };
      };
      expect(manifest.database).toMatchObject({ kind: 'postgres', url: url.slice(1, -1) });
      expect(readFileSync(join(work, 'snap', 'results', 'job_x-1')).equals(readFileSync(result))).toBe(true);

      const restored = await runCli(join(work, 'restored'), ['restore', join(work, 'snap')], settings);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toContain(`pg_restore --clean --if-exists --no-owner --dbname=${url}`);
      const onSqlite = await runCli(join(work, 'other'), ['restore', join(work, 'snap')]);
      expect(onSqlite).toMatchObject({ code: 1, stderr: expect.stringContaining('set database.url') as unknown });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
