// The local file store: keys stay inside its directory, writes are atomic, and files() lists what the
// store wrote (a half-written file under the key it was meant for) and nothing else.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalFileStore } from '../../src/stores/files/local.js';
import { removeOrphans } from '../../src/stores/files/orphans.js';

let dir: string;
let store: LocalFileStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-store-'));
  store = new LocalFileStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function keys(): Promise<string[]> {
  const out: string[] = [];
  for await (const f of store.files()) out.push(f.key);
  return out.sort();
}

it('put, get and remove a key and a folder/key; keys that could leave the directory are refused', async () => {
  await store.put('job_a-1', Buffer.from('A'));
  await store.put('mon_a/cap_a', Buffer.from('B'));
  expect((await store.get('job_a-1')).toString()).toBe('A');
  expect((await store.get('mon_a/cap_a')).toString()).toBe('B');
  for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a/b/c', 'a.b', '']) {
    await expect(store.put(bad, Buffer.from('x')), bad).rejects.toThrow(/not a file key/);
  }
  await expect(store.removeFolder('..')).rejects.toThrow(/not a folder name/);
  await store.remove('job_a-1');
  await store.remove('job_a-1'); // missing: not an error
  expect(await keys()).toEqual(['mon_a/cap_a']);
});

it('files() lists the keys, a half-written file under its key, and skips names the store never writes', async () => {
  await store.put('job_a-1', Buffer.from('A'));
  await store.put('mon_a/cap_a', Buffer.from('B'));
  writeFileSync(join(dir, 'job_b-1.partial'), 'half');
  writeFileSync(join(dir, 'notes.txt'), 'not ours');
  expect(await keys()).toEqual(['job_a-1', 'job_b-1', 'mon_a/cap_a']);
  await store.remove('job_b-1'); // removing the key removes its half-written copy
  expect(await keys()).toEqual(['job_a-1', 'mon_a/cap_a']);
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
  expect(await keys()).toEqual(['job_kept-1']);
});

it('removeOrphans judges a half-written copy by the shorter cut-off for partials', async () => {
  writeFileSync(join(dir, 'job_dead-1.partial'), 'half');
  await store.put('job_young-1', Buffer.from('A'));
  const now = new Date(Date.now() + 60_000);
  const nobody = () => false;
  // Files newer than `before` stay, but the aside copy is older than `partialsBefore`: it goes.
  expect(await removeOrphans(store, nobody, new Date(0), () => false, now)).toBe(1);
  expect(await keys()).toEqual(['job_young-1']);
});

it('a write that fails part-way leaves no half-written copy behind', async () => {
  // A folder where the file should go: the rename fails (EISDIR), a real fs failure like ENOSPC.
  mkdirSync(join(dir, 'job_x-1', 'inside'), { recursive: true });
  await expect(store.put('job_x-1', Buffer.from('A'))).rejects.toMatchObject({ code: expect.any(String) as unknown });
  expect(existsSync(join(dir, 'job_x-1.partial'))).toBe(false);
});
