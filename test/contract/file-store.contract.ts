// The file store's contract: what any FileStore (the local directory, PostgreSQL) must do, written against
// the interface only. `chunkBytes` is the implementation's read/write unit, so the sizes around it are tried.
import { createHash, randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeOrphans } from '../../src/stores/files/orphans.js';
import type { FileStore } from '../../src/stores/file-store.js';

export type OpenFileStore = () => Promise<{ store: FileStore; close(): Promise<void> }>;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function keysOf(store: FileStore): Promise<string[]> {
  const out: string[] = [];
  for await (const file of store.files()) out.push(file.key);
  return out.sort();
}

async function streamed(store: FileStore, key: string): Promise<{ size: number; bytes: Buffer }> {
  const { size, body } = await store.stream(key);
  return { size, bytes: await buffer(body) };
}

export function fileStoreContract(name: string, open: OpenFileStore, chunkBytes: number): void {
  describe(`file store: ${name}`, () => {
    let store: FileStore;
    let opened: Awaited<ReturnType<OpenFileStore>>;
    beforeEach(async () => {
      opened = await open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it('put, get, replace and remove a key and a folder/key', async () => {
      await store.put('job_a-1', Buffer.from('A'));
      await store.put('mon_a/cap_a', Buffer.from('B'));
      expect((await store.get('job_a-1')).toString()).toBe('A');
      expect((await store.get('mon_a/cap_a')).toString()).toBe('B');
      await store.put('job_a-1', Buffer.from('replaced'));
      expect((await store.get('job_a-1')).toString()).toBe('replaced');
      expect(await streamed(store, 'job_a-1')).toEqual({ size: 8, bytes: Buffer.from('replaced') });
      await store.remove('job_a-1');
      await store.remove('job_a-1'); // missing: not an error
      expect(await keysOf(store)).toEqual(['mon_a/cap_a']);
    });

    it('round-trips byte for byte: empty, 1 byte, one chunk, a chunk and a byte, 5 MB', async () => {
      const sizes = [0, 1, chunkBytes - 1, chunkBytes, chunkBytes + 1, 5 * 1024 * 1024];
      for (const size of sizes) {
        const bytes = randomBytes(size);
        await store.put(`size_${size}`, bytes);
        const got = await store.get(`size_${size}`);
        expect(got.length, `get of ${size} bytes`).toBe(size);
        expect(sha256(got), `get of ${size} bytes`).toBe(sha256(bytes));
        const out = await streamed(store, `size_${size}`);
        expect(out.size, `stream of ${size} bytes`).toBe(size);
        expect(sha256(out.bytes), `stream of ${size} bytes`).toBe(sha256(bytes));
      }
      expect(await keysOf(store)).toEqual(sizes.map((s) => `size_${s}`).sort());
    });

    it('a missing key: get and stream reject with ENOENT (what callers turn into 404 or 410)', async () => {
      await expect(store.get('job_missing-1')).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(store.stream('job_missing-1')).rejects.toMatchObject({ code: 'ENOENT' });
      await store.put('mon_a/cap_a', Buffer.from('x'));
      await expect(store.get('mon_a/cap_b')).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(store.stream('mon_a')).rejects.toMatchObject({ code: 'ENOENT' }); // a folder is not a file
    });

    it('refuses keys and folder names that could leave the store, and stores nothing for them', async () => {
      for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a/b/c', 'a.b', '', 'a%', 'x'.repeat(101)]) {
        await expect(store.put(bad, Buffer.from('x')), bad).rejects.toThrow(/not a file key/);
        await expect(store.get(bad), bad).rejects.toThrow(/not a file key/);
        await expect(store.stream(bad), bad).rejects.toThrow(/not a file key/);
        await expect(store.remove(bad), bad).rejects.toThrow(/not a file key/);
      }
      for (const bad of ['..', 'a/b', '', '%', '_%']) {
        await expect(store.removeFolder(bad), bad).rejects.toThrow(/not a folder name/);
      }
      expect(await keysOf(store)).toEqual([]);
    });

    it("removeFolder removes the folder's keys only, not a key or folder that merely starts alike", async () => {
      // Around the folder in byte order: `-` sorts before `/`, `0` just after it.
      for (const key of ['mon_a/cap_1', 'mon_a/cap_2', 'mon_a0', 'mon_ab/cap_1', 'mon_a-/cap_1', 'mon_b/cap_1']) {
        await store.put(key, Buffer.from(key));
      }
      await store.removeFolder('mon_a');
      await store.removeFolder('mon_none'); // missing: not an error
      expect(await keysOf(store)).toEqual(['mon_a-/cap_1', 'mon_a0', 'mon_ab/cap_1', 'mon_b/cap_1']);
      // `_` is a LIKE wildcard: a folder named with it must not take `monXa/...`.
      await store.put('monXa/cap_1', Buffer.from('x'));
      await store.put('mon_b/cap_2', Buffer.from('x'));
      await store.removeFolder('mon_b');
      expect(await keysOf(store)).toEqual(['monXa/cap_1', 'mon_a-/cap_1', 'mon_a0', 'mon_ab/cap_1']);
    });

    it('files() lists every key once with its time of writing', async () => {
      const before = Date.now() - 1000; // file times may be rounded down; a second of slack
      const keys = Array.from({ length: 30 }, (_, i) => (i % 3 ? `job_${i}-1` : `mon_${i % 2}/cap_${i}`));
      for (const key of keys) await store.put(key, Buffer.from(key));
      const files = [];
      for await (const file of store.files()) files.push(file);
      expect(files.map((f) => f.key).sort()).toEqual([...keys].sort());
      for (const file of files) {
        expect(file.modifiedAt.getTime()).toBeGreaterThanOrEqual(before);
        expect(file.modifiedAt.getTime()).toBeLessThanOrEqual(Date.now());
      }
    });

    // A download started before a replacement may fail (the database reads chunk by chunk and will not
    // send the rest from another version; the local store never does), but it never yields mixed bytes.
    it('concurrent puts of one key leave one complete version; readers meanwhile see a whole one', async () => {
      const versions = Array.from({ length: 4 }, () => randomBytes(2 * chunkBytes + 17));
      const hashes = versions.map(sha256);
      await store.put('job_race-1', versions[0]!);
      let writing = true;
      const reads: string[] = [];
      const reader = (async () => {
        while (writing) {
          reads.push(sha256(await store.get('job_race-1')));
          const out = await streamed(store, 'job_race-1').catch((err: Error) => err);
          if (out instanceof Error) expect(out.message).toMatch(/replaced or removed while it was read/);
          else reads.push(sha256(out.bytes));
        }
      })();
      await Promise.all(versions.map((bytes) => store.put('job_race-1', bytes)));
      writing = false;
      await reader;
      expect(hashes).toContain(sha256(await store.get('job_race-1')));
      expect(reads.length).toBeGreaterThan(0);
      for (const read of reads) expect(hashes).toContain(read);
      expect(await keysOf(store)).toEqual(['job_race-1']);
    });

    it('removeOrphans removes unreferenced files older than the cut-off, and stops when asked', async () => {
      await store.put('job_kept-1', Buffer.from('A'));
      await store.put('job_orphan-1', Buffer.from('B'));
      await store.put('mon_a/cap_orphan', Buffer.from('C'));
      const later = new Date(Date.now() + 60_000);
      const referenced = (key: string) => key === 'job_kept-1';
      expect(await removeOrphans(store, referenced, new Date(0))).toBe(0); // all newer than the cut-off
      expect(await removeOrphans(store, referenced, later, () => true)).toBe(0); // asked to stop at once
      expect(await removeOrphans(store, referenced, later)).toBe(2);
      expect(await keysOf(store)).toEqual(['job_kept-1']);
    });
  });
}
