// The jobs store's contract, for any backend: the queue's rows. Claims (fair between keys, never a
// revoked key's job, leases and tries), writes that name the lease owner, key and kind scoping,
// newest-first pages with a cursor, subjects, results and their expiry, and the `jobs` change.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import type { JobStore, NewJob, StoredResult } from '../../src/stores/jobs.js';

const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE = 30_000;
const RENDER = ['pdf', 'image'];

const result = (key: string, expiresAt = at(3600_000)): StoredResult => ({
  key,
  contentType: 'application/pdf',
  bytes: 12,
  meta: { renderMs: 5, pageCount: 2, truncated: false },
  expiresAt: expiresAt.toISOString(),
});

export function jobsContract(open: () => Promise<{ backend: Backend; close(): Promise<void> }>) {
  describe('jobs store', () => {
    let opened: { backend: Backend; close(): Promise<void> };
    let jobs: JobStore;
    let keyA: string;
    let keyB: string;
    let told: number;
    beforeEach(async () => {
      opened = await open();
      jobs = opened.backend.stores.jobs;
      keyA = (await opened.backend.stores.keys.create('a')).id;
      keyB = (await opened.backend.stores.keys.create('b')).id;
      told = 0;
      opened.backend.changes.on('jobs', () => told++);
    });
    afterEach(() => opened.close());

    let n = 0;
    const job = (over: Partial<NewJob> = {}): NewJob => ({
      id: `job_${++n}`,
      keyId: keyA,
      kind: 'pdf',
      request: { url: 'https://example.com', headers: { authorization: 'SECRET' }, filename: 'a.pdf' },
      keptRequest: { filename: 'a.pdf' },
      baseUrl: 'http://pagewatch.test',
      ...over,
    });
    const insert = async (over: Partial<NewJob> = {}, when = 0) => {
      const j = job(over);
      await jobs.insert(j, at(when));
      return j.id;
    };
    /** Exactly what was kept: toMatchObject alone would pass with the whole request still there. */
    const expectKept = async (id: string, kept: unknown = { filename: 'a.pdf' }) =>
      expect((await jobs.get(id))!.request).toEqual(kept);
    const claimOne = async (owner: string, when: number) => (await jobs.claim(owner, 1, LEASE, 3, at(when)))[0];

    describe('insert and read', () => {
      it('inserts a queued job with its request as an object, and tells `jobs`', async () => {
        const id = await insert({ webhookUrl: 'https://hook.test/a' }, 5);
        expect(await jobs.get(id)).toEqual({
          id,
          keyId: keyA,
          kind: 'pdf',
          status: 'queued',
          request: { url: 'https://example.com', headers: { authorization: 'SECRET' }, filename: 'a.pdf' },
          baseUrl: 'http://pagewatch.test',
          webhookUrl: 'https://hook.test/a',
          subject: null,
          attempts: 0,
          leaseOwner: null,
          error: null,
          result: null,
          createdAt: at(5).toISOString(),
          startedAt: null,
          finishedAt: null,
        });
        expect(told).toBe(1);
        expect(await jobs.get('job_missing')).toBeUndefined();
      });

      it('tells `jobs` only once a transaction commits, and not at all when it rolls back', async () => {
        await opened.backend.transaction(async (tx) => {
          await tx.jobs.insert(job(), at(0));
          expect(told).toBe(0);
        });
        expect(told).toBe(1);
        await expect(
          opened.backend.transaction(async (tx) => {
            await tx.jobs.insert(job({ id: 'job_rolled_back' }), at(0));
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(told).toBe(1);
        expect(await jobs.get('job_rolled_back')).toBeUndefined();
      });

      it('getOwned: another key, or a kind not asked for, is as good as missing', async () => {
        const id = await insert();
        const capture = await insert({ kind: 'capture', subject: 'mon_1' });
        expect(await jobs.getOwned(keyA, id, RENDER)).toMatchObject({ id });
        expect(await jobs.getOwned(keyB, id, RENDER)).toBeUndefined();
        expect(await jobs.getOwned(keyA, capture, RENDER)).toBeUndefined();
        expect(await jobs.getOwned(keyA, capture, ['capture'])).toMatchObject({ subject: 'mon_1' });
        expect(await jobs.getOwned(keyA, id, [])).toBeUndefined();
      });

      it('list: a key’s jobs of the kinds asked for, newest first, by status, in pages after a cursor', async () => {
        const ids = [];
        for (let i = 0; i < 5; i++) ids.push(await insert({}, i));
        const sameTime = [await insert({ id: 'job_b' }, 10), await insert({ id: 'job_a' }, 10)];
        await insert({ keyId: keyB }, 20);
        await insert({ kind: 'capture', subject: 'mon_1' }, 30);
        const all = await jobs.list(keyA, RENDER, { limit: 100 });
        // Newest first; the same created_at ordered by id, descending.
        expect(all.map((j) => j.id)).toEqual([...sameTime, ...ids.reverse()]);
        const page1 = await jobs.list(keyA, RENDER, { limit: 3 });
        expect(page1.map((j) => j.id)).toEqual(all.slice(0, 3).map((j) => j.id));
        const last = page1[2]!;
        const page2 = await jobs.list(keyA, RENDER, { limit: 3, before: { createdAt: last.createdAt, id: last.id } });
        expect(page2.map((j) => j.id)).toEqual(all.slice(3, 6).map((j) => j.id));
        // The cursor at the tie: only the lower id of the same time comes after it.
        const tie = await jobs.list(keyA, RENDER, {
          limit: 10,
          before: { createdAt: at(10).toISOString(), id: 'job_b' },
        });
        expect(tie[0]!.id).toBe('job_a');
        await jobs.claim('w', 1, LEASE, 3, at(40));
        expect((await jobs.list(keyA, RENDER, { limit: 10, status: 'running' })).map((j) => j.id)).toHaveLength(1);
        expect(await jobs.list(keyA, ['capture'], { limit: 10 })).toHaveLength(1);
        expect(await jobs.list(keyA, [], { limit: 10 })).toEqual([]);
      });

      it('countActive counts queued and running jobs of every kind; countByStatus the kinds asked for', async () => {
        await insert({}, 0);
        await insert({}, 1);
        await insert({ kind: 'capture', subject: 'mon_1' }, 2);
        await insert({ keyId: keyB }, 3);
        const claimed = await claimOne('w', 10);
        await jobs.succeed(claimed!.id, 'w', result('r'), at(11));
        expect(await jobs.countActive(keyA)).toBe(2);
        expect(await jobs.countActive(keyB)).toBe(1);
        expect(await jobs.countByStatus(RENDER)).toEqual({
          queued: 2,
          running: 0,
          succeeded: 1,
          failed: 0,
          canceled: 0,
        });
        expect(await jobs.countByStatus(['capture'])).toMatchObject({ queued: 1, succeeded: 0 });
      });
    });

    describe('claims and leases', () => {
      it('claims oldest first, counts the try, sets the lease and the first start, never twice', async () => {
        const ids = [await insert({}, 0), await insert({}, 1), await insert({}, 2)];
        const a = await jobs.claim('worker_a', 2, LEASE, 3, at(10));
        expect(a.map((j) => j.id)).toEqual(ids.slice(0, 2));
        expect(a[0]).toMatchObject({ status: 'running', attempts: 1, leaseOwner: 'worker_a' });
        expect(a[0]!.startedAt).toBe(at(10).toISOString());
        expect((await jobs.claim('worker_b', 5, LEASE, 3, at(11))).map((j) => j.id)).toEqual([ids[2]]);
        expect(await jobs.claim('worker_c', 5, LEASE, 3, at(12))).toEqual([]);
        expect(await jobs.runningOf('worker_a')).toEqual(new Set(ids.slice(0, 2)));
        expect(await jobs.runningOf('worker_c')).toEqual(new Set());
      });

      it('a running job is claimed again only once its lease ran out; renew extends it; the first start stays', async () => {
        const id = await insert();
        await claimOne('w1', 0);
        expect(await claimOne('w2', LEASE - 1)).toBeUndefined();
        await jobs.renew('w1', [id], LEASE, at(LEASE - 1));
        expect(await claimOne('w2', LEASE + 1)).toBeUndefined();
        const taken = await claimOne('w2', 2 * LEASE);
        expect(taken).toMatchObject({ id, attempts: 2, leaseOwner: 'w2', startedAt: at(0).toISOString() });
        expect(await jobs.runningOf('w1')).toEqual(new Set());
      });

      it('renew extends only the named jobs: one whose end could not be recorded is let go', async () => {
        const kept = await insert();
        const ended = await insert();
        expect((await jobs.claim('w1', 2, LEASE, 3, at(0))).map((j) => j.id).sort()).toEqual([kept, ended].sort());
        await jobs.renew('w1', [kept], LEASE, at(LEASE - 1));
        expect((await jobs.claim('w2', 2, LEASE, 3, at(LEASE + 1))).map((j) => j.id)).toEqual([ended]);
      });

      it('a job with no tries left is not claimed; failExhausted fails it with the kept request', async () => {
        const id = await insert();
        for (let i = 0; i < 3; i++) await claimOne(`w${i}`, i * 2 * LEASE);
        expect(await claimOne('w9', 10 * LEASE)).toBeUndefined();
        // The last try's lease runs out at 5 × LEASE: at that instant it has not run out yet.
        expect(await jobs.failExhausted(3, at(5 * LEASE))).toEqual([]);
        expect(await jobs.failExhausted(4, at(10 * LEASE))).toEqual([]); // a try left under a higher limit
        const failed = await jobs.failExhausted(3, at(10 * LEASE));
        expect(failed).toHaveLength(1);
        expect(failed[0]).toMatchObject({
          id,
          status: 'failed',
          leaseOwner: null,
          request: { filename: 'a.pdf' },
          error: { code: 'internal', message: 'the worker rendering it stopped before finishing, on every try' },
          finishedAt: at(10 * LEASE).toISOString(),
        });
        await expectKept(id);
      });

      it('failExhausted keeps the last error a try recorded', async () => {
        await insert();
        for (let i = 0; i < 3; i++) {
          const j = await claimOne('w', i * 2 * LEASE);
          if (i < 2) await jobs.requeue(j!.id, 'w', { code: 'unavailable', message: 'browser down' });
        }
        const [failed] = await jobs.failExhausted(3, at(10 * LEASE));
        expect(failed!.error).toEqual({ code: 'unavailable', message: 'browser down' });
      });

      it('keys take turns: a key with a long queue holds another key’s job back by one slot at most', async () => {
        const aJobs = [];
        for (let i = 0; i < 20; i++) aJobs.push(await insert({}, i));
        const running = await jobs.claim('w', 2, LEASE, 3, at(100));
        expect(running.map((j) => j.id)).toEqual(aJobs.slice(0, 2));
        const bJob = await insert({ keyId: keyB }, 200);
        await jobs.succeed(running[0]!.id, 'w', undefined, at(300));
        expect((await jobs.claim('w', 1, LEASE, 3, at(301))).map((j) => j.id)).toEqual([bJob]);
        expect((await jobs.claim('w', 1, LEASE, 3, at(302))).map((j) => j.id)).toEqual([aJobs[2]]);
      });

      it('never claims a revoked key’s job; cancelRevoked cancels its queued and running ones', async () => {
        const running = await insert({}, 0);
        await claimOne('w', 1);
        const queued = await insert({}, 2);
        const other = await insert({ keyId: keyB }, 3);
        await opened.backend.stores.keys.revoke(keyA, at(4));
        expect((await jobs.claim('w', 5, LEASE, 3, at(5))).map((j) => j.id)).toEqual([other]);
        expect(new Set(await jobs.cancelRevoked(at(6)))).toEqual(new Set([running, queued]));
        expect(await jobs.get(queued)).toMatchObject({
          status: 'canceled',
          request: { filename: 'a.pdf' },
          finishedAt: at(6).toISOString(),
          attempts: 0,
        });
        expect(await jobs.get(running)).toMatchObject({ status: 'canceled', leaseOwner: null });
        await expectKept(running);
        await expectKept(queued);
        await expectKept(other, job().request); // still queued: all of it
        expect(await jobs.cancelRevoked(at(7))).toEqual([]);
      });
    });

    describe('ending a job: only its lease owner may', () => {
      it('succeed stores the result and keeps only the kept request; another owner records nothing', async () => {
        const id = await insert();
        await claimOne('w', 0);
        expect(await jobs.succeed(id, 'other', result('x'), at(1))).toBeUndefined();
        const done = await jobs.succeed(id, 'w', result('r'), at(2));
        expect(done).toMatchObject({
          status: 'succeeded',
          leaseOwner: null,
          request: { filename: 'a.pdf' },
          error: null,
          finishedAt: at(2).toISOString(),
          result: {
            key: 'r',
            contentType: 'application/pdf',
            bytes: 12,
            meta: { renderMs: 5, pageCount: 2, truncated: false },
            removed: false,
          },
        });
        await expectKept(id);
        expect(await jobs.succeed(id, 'w', result('again'), at(3))).toBeUndefined(); // not running any more
      });

      it('succeed without a result (the outcome lives elsewhere) leaves the result empty', async () => {
        const id = await insert({ kind: 'capture', subject: 'mon_1', keptRequest: { monitorId: 'mon_1' } });
        await claimOne('w', 0);
        expect(await jobs.succeed(id, 'w', undefined, at(1))).toMatchObject({
          status: 'succeeded',
          result: null,
          request: { monitorId: 'mon_1' },
        });
      });

      it('fail records the error; requeue queues it again (keeping the error); both only for the owner', async () => {
        const id = await insert();
        await claimOne('w', 0);
        const error = { code: 'unavailable', message: 'the browser stopped' };
        expect(await jobs.requeue(id, 'other', error)).toBe(false);
        told = 0;
        expect(await jobs.requeue(id, 'w', error)).toBe(true);
        expect(told).toBe(1);
        expect(await jobs.get(id)).toMatchObject({ status: 'queued', leaseOwner: null, attempts: 1, error });
        await claimOne('w', 1);
        expect(await jobs.fail(id, 'other', error, at(2))).toBeUndefined();
        expect(await jobs.fail(id, 'w', { code: 'render_failed', message: 'HTTP 404' }, at(2))).toMatchObject({
          status: 'failed',
          attempts: 2,
          request: { filename: 'a.pdf' },
          error: { code: 'render_failed', message: 'HTTP 404' },
        });
        await expectKept(id);
      });

      it('release hands a stopping worker’s running jobs back without counting the try, and tells `jobs`', async () => {
        const id = await insert();
        await claimOne('w', 0);
        told = 0;
        expect(await jobs.release('other')).toBe(0);
        expect(told).toBe(0);
        expect(await jobs.release('w')).toBe(1);
        expect(told).toBe(1);
        expect(await jobs.get(id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
      });

      it('cancel: the key’s own queued or running job of the kinds asked for; nothing else', async () => {
        const queued = await insert({}, 0);
        const capture = await insert({ kind: 'capture', subject: 'mon_1' }, 1);
        expect(await jobs.cancel(keyB, queued, RENDER, at(2))).toBeUndefined();
        expect(await jobs.cancel(keyA, capture, RENDER, at(2))).toBeUndefined();
        expect(await jobs.cancel(keyA, queued, RENDER, at(3))).toMatchObject({
          status: 'canceled',
          request: { filename: 'a.pdf' },
          finishedAt: at(3).toISOString(),
        });
        await expectKept(queued);
        expect(await jobs.cancel(keyA, queued, RENDER, at(4))).toBeUndefined();
      });
    });

    describe('subjects', () => {
      it('activeFor: the oldest queued or running job about the subject; cancelFor cancels them all', async () => {
        expect(await jobs.activeFor('mon_1')).toBeUndefined();
        const first = await insert({ kind: 'capture', subject: 'mon_1' }, 0);
        const second = await insert({ kind: 'capture', subject: 'mon_1' }, 1);
        await insert({ kind: 'capture', subject: 'mon_2' }, 2);
        expect((await jobs.activeFor('mon_1'))!.id).toBe(first);
        await claimOne('w', 3); // `first` runs now: still active
        expect((await jobs.activeFor('mon_1'))!.id).toBe(first);
        expect(new Set(await jobs.cancelFor('mon_1', at(4)))).toEqual(new Set([first, second]));
        expect(await jobs.activeFor('mon_1')).toBeUndefined();
        expect(await jobs.get(first)).toMatchObject({ status: 'canceled', leaseOwner: null });
        await expectKept(first, job().keptRequest);
        expect(await jobs.activeFor('mon_2')).toBeDefined();
        expect(await jobs.cancelFor('mon_1', at(5))).toEqual([]);
      });
    });

    describe('results and retention', () => {
      it('expiredResults: unremoved results expired at `now`, soonest first, up to the limit', async () => {
        const ids = [];
        for (let i = 0; i < 3; i++) {
          const id = await insert({}, i);
          await claimOne('w', 10 + i);
          await jobs.succeed(id, 'w', result(`r${i}`, at(1000 - i)), at(20 + i));
          ids.push(id);
        }
        expect((await jobs.expiredResults(at(998), 10)).map((j) => j.id)).toEqual([ids[2]]);
        expect((await jobs.expiredResults(at(1000), 2)).map((j) => j.id)).toEqual([ids[2], ids[1]]);
        expect(await jobs.holdsResult(ids[2]!, 'r2')).toBe(true);
        expect(await jobs.holdsResult(ids[2]!, 'r1')).toBe(false);
        await jobs.markResultRemoved(ids[2]!, at(1001));
        expect(await jobs.holdsResult(ids[2]!, 'r2')).toBe(false);
        expect((await jobs.get(ids[2]!))!.result).toMatchObject({ key: 'r2', removed: true });
        expect((await jobs.expiredResults(at(1000), 10)).map((j) => j.id)).toEqual([ids[1], ids[0]]);
      });

      it('deleteFinished: jobs of that kind that finished before the cut, up to the limit', async () => {
        const captures = [];
        for (let i = 0; i < 3; i++) {
          const id = await insert({ kind: 'capture', subject: 'mon_1' }, i);
          await claimOne('w', 10 + i);
          await jobs.succeed(id, 'w', undefined, at(100 + i));
          captures.push(id);
        }
        const unfinished = await insert({ kind: 'capture', subject: 'mon_1' }, 50);
        const render = await insert({}, 51);
        await claimOne('w', 60);
        await jobs.succeed(render, 'w', result('r'), at(61));
        expect(await jobs.deleteFinished('capture', at(102), 1)).toBe(1);
        expect(await jobs.deleteFinished('capture', at(102), 10)).toBe(1);
        expect(await jobs.deleteFinished('capture', at(102), 10)).toBe(0);
        expect(await jobs.get(captures[2]!)).toBeDefined(); // finished at the cut: kept
        expect(await jobs.get(unfinished)).toBeDefined();
        expect(await jobs.get(render)).toBeDefined();
      });
    });
  });
}
