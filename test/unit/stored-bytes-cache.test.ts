// The disk figures of /api/status are summed over every capture kept: read at most once per 5 s however
// many status pages ask, and not kept when the read failed.
import { describe, expect, it } from 'vitest';
import { withStoredBytesCache } from '../../src/operations/status.js';
import type { StatusReadStore } from '../../src/stores/status-reads.js';

function countingReads() {
  const calls = { storedBytes: 0, failingMonitors: 0 };
  let fail = false;
  const reads: StatusReadStore = {
    failingMonitors: () => Promise.resolve(++calls.failingMonitors),
    deliveryBacklog: () => Promise.resolve({ pending: 0, retrying: 0, oldestPendingAt: null }),
    deliveriesEndedSince: () => Promise.resolve({ succeeded: 0, failed: 0 }),
    storedBytes: () => {
      calls.storedBytes++;
      return fail ? Promise.reject(new Error('db down')) : Promise.resolve({ captures: calls.storedBytes, results: 0 });
    },
  };
  return { reads, calls, failNext: (f: boolean) => (fail = f) };
}

describe('withStoredBytesCache', () => {
  it('answers storedBytes from memory for the ttl, then reads again; other reads are never cached', async () => {
    const { reads, calls } = countingReads();
    let now = 1000;
    const cached = withStoredBytesCache(reads, 5000, () => now);
    expect(await cached.storedBytes()).toEqual({ captures: 1, results: 0 });
    now += 4999;
    expect(await cached.storedBytes()).toEqual({ captures: 1, results: 0 });
    expect(calls.storedBytes).toBe(1);
    now += 1;
    expect(await cached.storedBytes()).toEqual({ captures: 2, results: 0 });
    expect(await cached.failingMonitors()).toBe(1);
    expect(await cached.failingMonitors()).toBe(2);
  });

  it('does not keep a failed read', async () => {
    const { reads, calls, failNext } = countingReads();
    const cached = withStoredBytesCache(reads, 5000, () => 0);
    failNext(true);
    await expect(cached.storedBytes()).rejects.toThrow('db down');
    failNext(false);
    expect(await cached.storedBytes()).toEqual({ captures: 2, results: 0 });
    expect(calls.storedBytes).toBe(2);
  });
});
