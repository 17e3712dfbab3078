// The free space of dataDir's disk, as /ready and submissions see it: read with statfs on the real disk,
// at most once a second (an injected clock stands in for time), and "low" under storage.minFreeBytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DiskSpace, READING_TTL_MS } from '../../src/operations/disk-space.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-disk-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('is ready with room, and not ready (507 for new work) under the threshold, naming the free space', async () => {
  const roomy = new DiskSpace({ dir, minFreeBytes: 0 });
  expect(await roomy.readiness()).toEqual({ usable: true });
  await expect(roomy.assertRoom()).resolves.toBeUndefined();

  const demanding = new DiskSpace({ dir, minFreeBytes: Number.MAX_SAFE_INTEGER });
  const { usable, reason } = await demanding.readiness();
  expect(usable).toBe(false);
  expect(reason).toMatch(/^the disk of dataDir has [\d.]+ (bytes|KiB|MiB) free, under storage\.minFreeBytes \(/);
  await expect(demanding.assertRoom()).rejects.toMatchObject({ code: 'insufficient_storage', status: 507 });
});

it('reads the disk at most once a READING_TTL_MS, however often it is asked', async () => {
  let now = 1_000_000;
  const space = new DiskSpace({ dir, minFreeBytes: 0, now: () => now });
  const first = space.reading();
  now += READING_TTL_MS - 1;
  expect(space.reading()).toBe(first);
  now += 1;
  const second = space.reading();
  expect(second).not.toBe(first);
  expect((await second)?.freeBytes).toBeGreaterThan(0);
});

it('a directory it cannot read refuses nothing', async () => {
  const space = new DiskSpace({ dir: join(dir, 'missing'), minFreeBytes: Number.MAX_SAFE_INTEGER });
  expect(await space.reading()).toBeUndefined();
  expect(await space.readiness()).toEqual({ usable: true });
});
