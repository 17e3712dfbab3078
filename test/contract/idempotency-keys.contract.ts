// The idempotency-keys store's contract, for any backend: an entry per (API key, Idempotency-Key),
// honoured from `since` on, replaced when put again, swept by age.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';

const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

export function idempotencyKeysContract(open: () => Promise<{ backend: Backend; close(): Promise<void> }>) {
  describe('idempotency-keys store', () => {
    let opened: { backend: Backend; close(): Promise<void> };
    let keyA: string;
    let keyB: string;
    beforeEach(async () => {
      opened = await open();
      keyA = (await opened.backend.stores.keys.create('a')).id;
      keyB = (await opened.backend.stores.keys.create('b')).id;
      // An entry names a job that exists.
      for (const id of ['job_1', 'job_2', 'job_3']) {
        await opened.backend.stores.jobs.insert(
          { id, keyId: keyA, kind: 'pdf', request: {}, keptRequest: {}, baseUrl: 'http://x' },
          at(0),
        );
      }
    });
    afterEach(() => opened.close());
    const store = () => opened.backend.stores.idempotency;

    it('finds what was put, for that API key only', async () => {
      await store().put(keyA, 'k1', 'hash1', 'job_1', at(0));
      expect(await store().find(keyA, 'k1', at(-1))).toEqual({
        jobId: 'job_1',
        requestHash: 'hash1',
        createdAt: at(0).toISOString(),
      });
      expect(await store().find(keyB, 'k1', at(-1))).toBeUndefined();
      expect(await store().find(keyA, 'k2', at(-1))).toBeUndefined();
    });

    it('an entry made before `since` is not found (made exactly at `since` is)', async () => {
      await store().put(keyA, 'k1', 'hash1', 'job_1', at(0));
      expect(await store().find(keyA, 'k1', at(0))).toBeDefined();
      expect(await store().find(keyA, 'k1', at(1))).toBeUndefined();
    });

    it('putting the same key again replaces the entry', async () => {
      await store().put(keyA, 'k1', 'hash1', 'job_1', at(0));
      await store().put(keyA, 'k1', 'hash2', 'job_2', at(100));
      expect(await store().find(keyA, 'k1', at(-1))).toEqual({
        jobId: 'job_2',
        requestHash: 'hash2',
        createdAt: at(100).toISOString(),
      });
    });

    it('sweep deletes entries made before the cut and says how many', async () => {
      await store().put(keyA, 'old', 'h', 'job_1', at(0));
      await store().put(keyB, 'old', 'h', 'job_2', at(5));
      await store().put(keyA, 'new', 'h', 'job_3', at(10));
      expect(await store().sweep(at(10))).toBe(2);
      expect(await store().find(keyA, 'old', at(-1))).toBeUndefined();
      expect(await store().find(keyA, 'new', at(-1))).toBeDefined();
      expect(await store().sweep(at(10))).toBe(0);
    });

    it('writes inside a transaction that rolls back are gone', async () => {
      await expect(
        opened.backend.transaction(async (tx) => {
          await tx.idempotency.put(keyA, 'k1', 'h', 'job_1', at(0));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await store().find(keyA, 'k1', at(-1))).toBeUndefined();
    });
  });
}
