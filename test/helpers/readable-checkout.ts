// The tests that run the built service as another user (`nobody`) need that user to read the CLI, its
// node_modules, config and migrations. A checkout may sit where other users cannot go (CI clones under
// /root, mode 700): then what the CLI needs is staged in a world-readable temp folder — hard links where
// the file system allows, so it costs no copy — and the CLI there is used.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI } from './durability-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** What `node dist/src/cli.js serve` reads: the build, its packages, settings, migrations and the pages' static files (src/web/static). */
const NEEDED = ['package.json', 'dist', 'node_modules', 'config', 'migrations', 'src'];
const cliIn = (root: string) => join(root, 'dist/src/cli.js');

export function canRead(user: string, path: string): boolean {
  return spawnSync('runuser', ['-u', user, '--', 'test', '-r', path]).status === 0;
}

function readableBy(user: string, root: string): boolean {
  return [cliIn(root), join(root, 'node_modules/playwright-core/package.json'), process.execPath].every((p) =>
    canRead(user, p),
  );
}

/** The CLI path `user` can run, and how to remove what was staged for it (nothing, when the checkout will do). */
export function cliReadableBy(user: string): { cli: string; staged: boolean; cleanup(): void } {
  if (readableBy(user, ROOT)) return { cli: CLI, staged: false, cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-checkout-'));
  chmodSync(dir, 0o755);
  for (const entry of NEEDED) {
    const from = join(ROOT, entry);
    if (spawnSync('cp', ['-al', from, dir]).status !== 0 && spawnSync('cp', ['-a', from, dir]).status !== 0) {
      throw new Error(`could not stage ${from} in ${dir} for user ${user}`);
    }
  }
  if (!readableBy(user, dir)) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `user ${user} cannot read the checkout, nor a copy of it in ${tmpdir()}: its files (and node, ${process.execPath}) must be readable by other users`,
    );
  }
  return { cli: cliIn(dir), staged: true, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
