#!/usr/bin/env node
// `pagewatch` command: `serve` (the default) and `migrate`.
import { resolve } from 'node:path';
import { ConfigError, describeSettings, loadConfig } from './config.js';
import { migrate, readMigrations } from './db/migrate.js';
import { openDatabase } from './db/open.js';
import { createLogger } from './log.js';
import { startService } from './main.js';
import { projectRoot } from './project-root.js';

const USAGE = `usage: pagewatch <command>
  serve        start the service (default)
  migrate      apply database migrations and exit
  config       list every setting, its environment variable and default`;

async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? 'serve';
  if (command === '--help' || command === 'help') { console.log(USAGE); return 0; }
  if (command === 'config') {
    for (const s of describeSettings()) console.log(`${s.path}\t${s.env}\t${JSON.stringify(s.default)}\t${s.description}`);
    return 0;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  if (command === 'migrate') {
    const db = openDatabase(resolve(config.dataDir, 'pagewatch.db'));
    const applied = migrate(db, readMigrations(resolve(projectRoot(), 'migrations')));
    db.close();
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    return 0;
  }
  if (command !== 'serve') { console.error(USAGE); return 2; }

  const service = await startService(config, log);
  await new Promise<void>((done) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info({ signal }, 'shutting down');
      service.stop().then(done, (err) => { log.error({ err }, 'shutdown failed'); process.exitCode = 1; done(); });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  return process.exitCode === undefined ? 0 : Number(process.exitCode);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
