#!/usr/bin/env node
// The `pagewatch` command: `serve` (the default), `keys`, `migrate`, `backup`, `restore` and `config` (USAGE
// below, docs/cli.md).
import { ConfigError } from './config.js';
import { describeSettings, loadConfig } from './config-load.js';
import { KeyPurge } from './auth/purge.js';
import { KeyRevocation } from './auth/revocation.js';
import { DatabaseOpenError } from './stores/sql/open-backend.js';
import { MigrationMismatchError } from './stores/sql/migrate.js';
import { SnapshotError, type Manifest } from './backup/manifest.js';
import { restoreSnapshot } from './backup/restore.js';
import { takeSnapshot } from './backup/snapshot.js';
import type { Config } from './config.js';
import { createLogger } from './log.js';
import { isRole } from './app/roles.js';
import { openStorage, type Storage } from './app/storage.js';
import { NODE_ROLES, type NodeRole } from './domain/node-role.js';

const USAGE = `usage: pagewatch <command>
  serve [--role ${NODE_ROLES.join('|')}]
                             start the service (default); --role overrides the setting role
  keys create --name NAME    make an API key; prints the key and its webhook secret once
  keys list                  list keys (never the keys themselves)
  keys revoke ID             revoke a key: its requests are refused, its jobs canceled, its monitors paused
                             and its pending webhooks failed (a running service stops their renders too)
  keys delete ID --purge     revoke a key, then delete it with all its jobs and results, monitors and
                             captures, webhook deliveries and idempotency keys
  keys rotate-secret ID [--grace-hours H]
                             new webhook signing secret, printed once; the old one also signs for H hours
                             (default webhooks.secretGraceHours)
  migrate                    apply database migrations and exit
  backup --out DIR           snapshot the data into a new directory DIR while the service runs (on
                             PostgreSQL: the files and the pg_dump and pg_restore commands to run)
  restore DIR [--force]      restore a snapshot into dataDir (service stopped); --force moves the data
                             there aside first
  config                     list every setting, its environment variable and default`;

async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? 'serve';
  if (command === '--help' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command === 'config') {
    for (const s of describeSettings())
      console.log(`${s.path}\t${s.env}\t${JSON.stringify(s.default)}\t${s.description}`);
    return 0;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  if (command === 'backup' || command === 'restore') {
    return command === 'backup' ? backupCommand(config, argv.slice(1)) : restoreCommand(config, argv.slice(1));
  }
  if (command === 'migrate' || command === 'keys') {
    // Migrated either way: the stores are made for its tables.
    const storage = await openStorage(config, log);
    if (command === 'migrate') {
      await storage.backend.close();
      console.log(storage.applied.length ? `applied: ${storage.applied.join(', ')}` : 'database is up to date');
      return 0;
    }
    try {
      return await keysCommand(storage, argv.slice(1), config.webhooks.secretGraceHours);
    } finally {
      await storage.backend.close(); // closes the handle, or the pool
    }
  }
  if (command !== 'serve') {
    console.error(USAGE);
    return 2;
  }
  const role = roleOption(argv.slice(1));
  if (role instanceof Error) {
    console.error(`${role.message}\n${USAGE}`);
    return 2;
  }

  // Loaded only to serve: it pulls in Playwright, which `keys` and `migrate` have no use for.
  const { startService } = await import('./app/serve.js');
  const service = await startService(role ? { ...config, role } : config, log);
  await new Promise<void>((done) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info({ signal }, 'shutting down');
      service.stop().then(done, (err) => {
        log.error({ err }, 'shutdown failed');
        process.exitCode = 1;
        done();
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  return process.exitCode === undefined ? 0 : Number(process.exitCode);
}

/** `--role X` or `--role=X` among serve's arguments: the role, none, or an Error that says what is wrong. */
function roleOption(args: string[]): NodeRole | undefined | Error {
  const at = args.findIndex((a) => a === '--role' || a.startsWith('--role='));
  if (at < 0) return undefined;
  const value = args[at]!.startsWith('--role=') ? args[at]!.slice('--role='.length) : args[at + 1];
  if (value === undefined || !isRole(value))
    return new Error(
      `--role must be one of ${NODE_ROLES.join(', ')} (got ${value === undefined ? 'nothing' : `"${value}"`})`,
    );
  return value;
}

async function backupCommand(config: Readonly<Config>, args: string[]): Promise<number> {
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? args[outAt + 1] : undefined;
  if (!out || args.length !== 2) {
    console.error('usage: pagewatch backup --out DIR   (DIR: a new directory)');
    return 2;
  }
  const made = await takeSnapshot(config, out);
  const { database } = made.manifest;
  console.log(`snapshot:     ${made.dir}`);
  if (database.kind === 'sqlite') {
    console.log(`database:     ${database.file}, ${migrationsLine(made.manifest)}`);
  } else {
    console.log('database:     PostgreSQL, not in the snapshot: dump it with pg_dump, run before this command');
    console.log('              (files are written before the rows that name them, so files copied after the dump');
    console.log('              include every file it refers to). pg_dump asks for the password, or reads');
    console.log('              PGPASSWORD or ~/.pgpass:');
    console.log(`  ${made.postgres!.dump}`);
    console.log('              Restore it, into an empty database, with:');
    console.log(`  ${made.postgres!.restore}`);
  }
  console.log(
    made.manifest.storageDriver === 'fs'
      ? `stored files: ${made.storedFiles} (${made.secondPassFiles} written while the database was copied)`
      : 'stored files: in the database (storage.driver "database")',
  );
  console.log(`secrets key:  ${secretsKeyLine(made.manifest)}`);
  console.log(`total:        ${made.bytes} bytes in ${made.ms} ms`);
  return 0;
}

async function restoreCommand(config: Readonly<Config>, args: string[]): Promise<number> {
  const dirs = args.filter((a) => a !== '--force');
  if (dirs.length !== 1 || dirs[0]!.startsWith('--')) {
    console.error('usage: pagewatch restore DIR [--force]   (DIR: a snapshot made by pagewatch backup)');
    return 2;
  }
  const done = await restoreSnapshot(config, dirs[0]!, { force: args.includes('--force') });
  console.log(`restored:     ${done.files} files, ${done.bytes} bytes into ${done.dataDir} in ${done.ms} ms`);
  if (done.asideDir) console.log(`moved aside:  what was there, to ${done.asideDir} (delete it once you are sure)`);
  if (done.manifest.database.kind === 'sqlite') {
    console.log(`database:     ${migrationsLine(done.manifest)}; \`pagewatch serve\` applies newer ones at start`);
  } else {
    console.log('database:     PostgreSQL: restore it from the pg_dump taken with this snapshot, into an empty');
    console.log('              database, before starting the service:');
    console.log(`  ${done.postgres!.restore}`);
  }
  console.log(`secrets key:  ${secretsKeyLine(done.manifest)}`);
  return 0;
}

function migrationsLine(manifest: Manifest): string {
  if (manifest.database.kind !== 'sqlite') return '';
  const last = manifest.database.migrations.at(-1);
  return last ? `migrations up to ${last.name}` : 'no migrations applied';
}

function secretsKeyLine(manifest: Manifest): string {
  if (manifest.secretsKey === 'file') return 'secret.key is in the snapshot: keep the snapshot as private as the data';
  if (manifest.secretsKey === 'configured')
    return 'secrets.key is set in the configuration and is not in the snapshot: keep it with the snapshot';
  return 'none yet (no secret.key in dataDir)';
}

const PURGE_USAGE = `usage: pagewatch keys delete ID --purge
--purge is required: it revokes the key, then deletes it with all its jobs and their result files, its
monitors with their captures and capture images, its webhook deliveries and their attempts, and its
idempotency keys. This cannot be undone.`;

async function keysCommand(storage: Storage, args: string[], defaultGraceHours: number): Promise<number> {
  const { backend } = storage;
  const { keys } = backend.stores;
  const revocation = new KeyRevocation(backend);
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const nameAt = rest.indexOf('--name');
    const name = nameAt >= 0 ? rest[nameAt + 1] : undefined;
    if (!name) {
      console.error('usage: pagewatch keys create --name NAME');
      return 2;
    }
    const issued = await keys.create(name);
    console.log(`id:             ${issued.id}`);
    console.log(`name:           ${issued.name}`);
    console.log(`key:            ${issued.key}`);
    console.log(`webhook secret: ${issued.webhookSecret}`);
    console.log('Store both now: they are not shown again (only a hash of the key is kept).');
    return 0;
  }
  if (sub === 'list') {
    const rows = await keys.list();
    if (rows.length === 0) console.log('no keys');
    for (const k of rows) {
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
      console.log(
        `${k.id}\t${k.keyPrefix}…\t${k.name}\t${state}\tcreated ${k.createdAt}\tlast used ${k.lastUsedAt ?? 'never'}`,
      );
    }
    return 0;
  }
  if (sub === 'revoke' && rest[0]) {
    if (!(await revocation.revoke(rest[0]))?.revokedNow) {
      console.error(`no active key with id ${rest[0]}`);
      return 1;
    }
    console.log(`revoked ${rest[0]}`);
    return 0;
  }
  if (sub === 'delete') {
    const id = rest.find((arg) => !arg.startsWith('--'));
    if (!id || !rest.includes('--purge')) {
      console.error(PURGE_USAGE);
      return 2;
    }
    const { results, captures } = storage.files();
    const purge = new KeyPurge(backend, revocation, results, captures);
    const report = await purge.purge(id);
    if (!report) {
      console.error(`no key with id ${id}`);
      return 1;
    }
    if (report.revocation.revokedNow) console.log(`revoked ${id}`);
    console.log(`jobs:               ${report.jobs}`);
    console.log(`job results:        ${report.results}`);
    console.log(`monitors:           ${report.monitors}`);
    console.log(`captures:           ${report.captures}`);
    console.log(`webhook deliveries: ${report.deliveries}`);
    console.log(`webhook attempts:   ${report.attempts}`);
    console.log(`idempotency keys:   ${report.idempotencyKeys}`);
    console.log(`deleted ${id}`);
    return 0;
  }
  if (sub === 'rotate-secret' && rest[0]) {
    const graceAt = rest.indexOf('--grace-hours');
    const graceHours = graceAt >= 0 ? Number(rest[graceAt + 1]) : defaultGraceHours;
    if (!Number.isFinite(graceHours) || graceHours < 0) {
      console.error('--grace-hours takes a number of hours, 0 or more');
      return 2;
    }
    const secret = await keys.rotateSecret(rest[0], graceHours * 3600_000);
    if (!secret) {
      console.error(`no active key with id ${rest[0]}`);
      return 1;
    }
    console.log(`webhook secret: ${secret}`);
    console.log(
      graceHours > 0
        ? `Webhooks carry signatures with both the new and the old secret for ${graceHours} h; switch your ` +
            `receivers within that time.`
        : 'The old secret no longer signs.',
    );
    return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    const told =
      err instanceof ConfigError ||
      err instanceof DatabaseOpenError ||
      err instanceof SnapshotError ||
      err instanceof MigrationMismatchError;
    console.error(told ? err.message : err);
    process.exit(1);
  },
);
