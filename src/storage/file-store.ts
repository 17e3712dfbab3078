// Where stored files live (job results, monitor captures): behind a small interface so a later
// S3-compatible store can replace the local directory without touching the callers.
import { mkdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface StoredFile {
  key: string;
  modifiedAt: Date;
}

export interface FileStore {
  /** Store the bytes under `key`, replacing any earlier bytes. */
  put(key: string, bytes: Buffer): Promise<void>;
  get(key: string): Promise<Buffer>;
  /** Remove; a missing key is not an error. */
  remove(key: string): Promise<void>;
  /** Remove every key under `prefix/` (a monitor's captures). */
  removeFolder(prefix: string): Promise<void>;
  /** Every stored file; a half-written one is listed under the key it was meant for. */
  files(): AsyncIterable<StoredFile>;
}

const NAME = '[A-Za-z0-9_-]{1,100}';
/** `name` or `folder/name`: nothing a caller passes can reach outside the store's directory. */
const SAFE_KEY = new RegExp(`^${NAME}(/${NAME})?$`);
const SAFE_FOLDER = new RegExp(`^${NAME}$`);

export class LocalFileStore implements FileStore {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.path(key);
    await mkdir(dirname(file), { recursive: true });
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

  async removeFolder(prefix: string): Promise<void> {
    if (!SAFE_FOLDER.test(prefix)) throw new Error(`not a folder name: ${prefix}`);
    await rm(join(this.dir, prefix), { recursive: true, force: true });
  }

  async *files(): AsyncIterable<StoredFile> {
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        for (const name of await readdir(join(this.dir, entry.name))) yield* this.file(`${entry.name}/${name}`);
      } else if (entry.isFile()) {
        yield* this.file(entry.name);
      }
    }
  }

  /** The file at `relative`, if it is one of ours (a key, or a key's aside copy) and still there. */
  private async *file(relative: string): AsyncIterable<StoredFile> {
    const key = relative.endsWith('.partial') ? relative.slice(0, -'.partial'.length) : relative;
    if (!SAFE_KEY.test(key)) return; // not written by the store: not ours to judge
    const info = await stat(join(this.dir, relative)).catch(() => undefined);
    if (info?.isFile()) yield { key, modifiedAt: info.mtime };
  }

  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`not a file key: ${key}`);
    return join(this.dir, key);
  }
}
