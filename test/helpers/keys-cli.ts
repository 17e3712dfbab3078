// `pagewatch keys …` (and any other command) as its own process on a test service's data directory (the
// built CLI, as an operator runs it next to a running service).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CLI } from './durability-cli.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `settings`: more PAGEWATCH_* variables (the database, say); none of the developer's own are passed. */
export function runKeysCli(dataDir: string, args: string[], settings: Record<string, string> = {}): Promise<CliRun> {
  return runCli(dataDir, ['keys', ...args], settings);
}

/** Any `pagewatch` command (backup, restore, migrate…) on `dataDir`, as runKeysCli runs `keys`. */
export function runCli(dataDir: string, args: string[], settings: Record<string, string> = {}): Promise<CliRun> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -p tsconfig.json\` (npm test builds first)`);
  const env = { PATH: process.env.PATH ?? '', PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_LOG_LEVEL: 'silent', ...settings };
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}
