// Stored files in a local directory (storage.driver=fs). The interface is in src/stores/file-store.ts; the
// database implements it too (database.ts).
import { mkdirSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  checkFileKey,
  checkFolderName,
  isFileKey,
  missingFile,
  type FileStore,
  type StoredFile,
} from '../file-store.js';

export class LocalFileStore implements FileStore {
  /** The write under way per file: two puts of one key in this process take turns on its aside copy. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.path(key);
    const mine = (this.writing.get(file) ?? Promise.resolve()).catch(() => {}).then(() => this.write(file, bytes));
    this.writing.set(file, mine);
    try {
      await mine;
    } finally {
      if (this.writing.get(file) === mine) this.writing.delete(file);
    }
  }

  async get(key: string): Promise<Buffer> {
    return readFile(this.path(key)); // async: a refused key rejects rather than throws
  }

  async stream(key: string): Promise<{ size: number; body: Readable }> {
    // Size and bytes from one open file: a put (a rename) or remove meanwhile does not change what it reads.
    const handle = await open(this.path(key), 'r');
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw missingFile(key); // a folder of keys is not a stored file
      return { size: info.size, body: handle.createReadStream() }; // the stream closes the handle
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    const file = this.path(key);
    // A process that died mid-write leaves the aside copy; it goes with the key.
    await Promise.all([rm(file, { force: true }), rm(`${file}.partial`, { force: true })]);
  }

  async removeFolder(prefix: string): Promise<void> {
    await rm(join(this.dir, checkFolderName(prefix)), { recursive: true, force: true });
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

  private async write(file: string, bytes: Buffer): Promise<void> {
    await mkdir(dirname(file), { recursive: true });
    // Write aside, then rename: a crash mid-write never leaves a half file under the real name.
    const partial = `${file}.partial`;
    try {
      await writeFile(partial, bytes);
      await rename(partial, file);
    } catch (err) {
      // A write that failed part-way (a full disk) leaves no half file to hold on to the space.
      await rm(partial, { force: true }).catch(() => {});
      throw err;
    }
  }

  /** The file at `relative`, if it is one of ours (a key, or a key's aside copy) and still there. */
  private async *file(relative: string): AsyncIterable<StoredFile> {
    const partial = relative.endsWith('.partial');
    const key = partial ? relative.slice(0, -'.partial'.length) : relative;
    if (!isFileKey(key)) return; // not written by the store: not ours to judge
    const info = await stat(join(this.dir, relative)).catch(() => undefined);
    if (info?.isFile()) yield { key, modifiedAt: info.mtime, ...(partial && { partial }) };
  }

  private path(key: string): string {
    return join(this.dir, checkFileKey(key));
  }
}
