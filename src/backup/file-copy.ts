// Copying the files of a snapshot, in and out: each copy hashed as it goes and synced (a snapshot must
// survive a crash right after it was taken), several at once (each waits on its fsync, and the disk takes
// several together), directories 0700 and files 0600 (a snapshot holds the secrets key).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const COPIES_AT_ONCE = 8;

/**
 * `fn` for every item, COPIES_AT_ONCE at a time. The first failure stops the rest from starting, and is
 * thrown once those under way have ended: the caller's clean-up never races a copy still writing.
 */
export async function atOnce<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length)
      await fn(items[next++]!).catch((err: unknown) => {
        failed = true;
        throw err;
      });
  };
  const ended = await Promise.allSettled(Array.from({ length: COPIES_AT_ONCE }, worker));
  const failure = ended.find((e) => e.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Copy `from` to `to` (0600, synced), hashing as it goes; undefined when `from` is not there (any more). */
export async function copyFile(from: string, to: string): Promise<{ bytes: number; sha256: string } | undefined> {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const source = createReadStream(from);
  // Opened before anything is created: a file deleted since it was listed leaves nothing behind.
  const opened = await new Promise<boolean>((done, fail) => {
    source.once('open', () => done(true));
    source.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? done(false) : fail(err)));
  });
  if (!opened) return undefined;
  await makePrivateDir(dirname(to));
  await pipeline(source, tap, createWriteStream(to, { flags: 'wx', mode: 0o600 }));
  await syncFile(to);
  return { bytes, sha256: hash.digest('hex') };
}

export async function makePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  await chmod(path, 0o700);
}

export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A rename or a new entry is durable once its directory is synced. */
export async function syncDir(path: string): Promise<void> {
  await syncFile(path);
}

/** Syncs `root` and every directory under it that holds one of `paths` (relative to it), deepest first. */
export async function syncDirsOf(root: string, paths: Iterable<string>): Promise<void> {
  const dirs = new Set<string>();
  for (const path of paths) for (let d = dirname(path); d !== '.'; d = dirname(d)) dirs.add(d);
  const deepestFirst = [...dirs].sort((a, b) => b.split('/').length - a.split('/').length);
  await atOnce(deepestFirst, (dir) => syncDir(join(root, dir)));
  await syncDir(root);
}
