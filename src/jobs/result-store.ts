// Where job results live: behind a small interface so a later S3-compatible store can replace the
// local directory without touching the worker or the routes.
import { mkdirSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ResultStore {
  /** Store the bytes under `key`, replacing any earlier bytes (a retried job writes the same key). */
  put(key: string, bytes: Buffer): Promise<void>;
  get(key: string): Promise<Buffer>;
  /** Remove; a missing key is not an error. */
  remove(key: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9_-]{1,100}$/;

export class LocalResultStore implements ResultStore {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.path(key);
    // Write aside, then rename: a crash mid-write never leaves a half file under the real name.
    const partial = `${file}.partial`;
    await writeFile(partial, bytes);
    await rename(partial, file);
  }

  get(key: string): Promise<Buffer> {
    return readFile(this.path(key));
  }

  async remove(key: string): Promise<void> {
    const file = this.path(key);
    // A process that died mid-write leaves the aside copy; it goes with the key.
    await Promise.all([rm(file, { force: true }), rm(`${file}.partial`, { force: true })]);
  }

  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`not a result key: ${key}`);
    return join(this.dir, key);
  }
}
