// What the PostgreSQL file store adds to the contract (file-store.contract.ts): downloads read a chunk
// per query as the consumer takes them; a put that fails midway leaves nothing; each namespace is its own.
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { CHUNK_BYTES, DatabaseFileStore } from '../../src/stores/files/database.js';
import { removeOrphans } from '../../src/stores/files/orphans.js';
import { openBlobDatabase, type BlobDatabase } from '../helpers/blob-database.js';
import { describePostgres } from '../helpers/postgres-local.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
type AnyFn = (...args: unknown[]) => unknown;
const namespace = () => `test_${randomBytes(4).toString('hex')}`;

describePostgres('PostgreSQL file store', () => {
  let database: BlobDatabase;
  beforeAll(async () => {
    database = await openBlobDatabase();
  });
  afterAll(() => database?.close());

  const undo: (() => void)[] = [];
  afterEach(() =>
    undo
      .splice(0)
      .reverse()
      .forEach((fn) => fn()),
  );

  /** Puts `wrap` around `target[name]` until the test ends (or the returned undo is called). */
  function around<T extends object>(
    target: T,
    name: string,
    wrap: (next: AnyFn, args: unknown[]) => unknown,
  ): () => void {
    const holder = target as unknown as Record<string, AnyFn>;
    const own = Object.hasOwn(holder, name);
    const original = holder[name]!;
    holder[name] = (...args: unknown[]) => wrap((...a: unknown[]) => original.apply(target, a), args);
    const restore = () => {
      if (own) holder[name] = original;
      else delete holder[name];
    };
    undo.push(restore);
    return restore;
  }

  /** Counts the chunk reads the pool is asked for, and those not answered yet. */
  function countChunkQueries(pool: pg.Pool): { count: number; inFlight: number } {
    const counter = { count: 0, inFlight: 0 };
    around(pool, 'query', (query, args) => {
      if (typeof args[0] !== 'string' || !args[0].includes('FROM blob_chunks')) return query(...args);
      counter.count++;
      counter.inFlight++;
      return (query(...args) as Promise<unknown>).finally(() => counter.inFlight--);
    });
    return counter;
  }

  /** Until the store has no chunk read under way, a turn of the event loop after the last one ended. */
  async function settled(counter: { inFlight: number }): Promise<void> {
    do await new Promise((resolve) => setImmediate(resolve));
    while (counter.inFlight > 0);
  }

  it('streams 64 MB a chunk per query, never more than two chunks ahead of a slow consumer', async () => {
    const store = new DatabaseFileStore(database.pool, namespace());
    const bytes = randomBytes(64 * 1024 * 1024);
    await store.put('job_big-1', bytes);
    const chunkQueries = countChunkQueries(database.pool);
    const { size, body } = await store.stream('job_big-1');
    expect(size).toBe(bytes.length);
    const hash = createHash('sha256');
    let consumed = 0;
    let mostAhead = 0;
    await pipeline(
      body,
      new Writable({
        highWaterMark: 1, // takes one piece at a time: what the store reads ahead shows in chunkQueries
        write(piece: Buffer, _encoding, done) {
          consumed += piece.length;
          hash.update(piece);
          // The slowest consumer: it takes the next piece only once the store has read all it wanted to.
          // What the store asked of the database beyond what reached the consumer is then its read-ahead.
          settled(chunkQueries).then(() => {
            mostAhead = Math.max(mostAhead, chunkQueries.count - Math.ceil(consumed / CHUNK_BYTES));
            done();
          }, done);
        },
      }),
    );
    expect(hash.digest('hex')).toBe(sha256(bytes));
    expect(chunkQueries.count).toBe(bytes.length / CHUNK_BYTES); // 256 queries of one chunk each
    expect(mostAhead).toBeLessThanOrEqual(2);
  });

  it('a download abandoned after its first chunk asks for no more', async () => {
    const store = new DatabaseFileStore(database.pool, namespace());
    await store.put('job_gone-1', randomBytes(10 * CHUNK_BYTES));
    const chunkQueries = countChunkQueries(database.pool);
    const { body } = await store.stream('job_gone-1');
    const first = await new Promise<Buffer>((resolve) => body.once('data', resolve));
    expect(first.length).toBe(CHUNK_BYTES);
    body.destroy(); // the client went away
    // The read that was in flight may finish; a new one is never started: check after a round-trip.
    await store.get('job_gone-1');
    expect(chunkQueries.count).toBeLessThanOrEqual(2);
  });

  it('a put that fails midway leaves the earlier bytes, or nothing for a new key, and frees its connection', async () => {
    const store = new DatabaseFileStore(database.pool, namespace());
    const before = randomBytes(3 * CHUNK_BYTES);
    await store.put('job_half-1', before);
    let released = 0;
    // Each connection the store takes fails its third chunk insert, as a connection lost mid-put would.
    const stopFailing = around(database.pool, 'connect', async (connect, args) => {
      const client = (await connect(...args)) as pg.PoolClient;
      let chunk = 0;
      const restoreQuery = around(client, 'query', (query, queryArgs) => {
        const sql = queryArgs[0];
        if (typeof sql === 'string' && sql.startsWith('INSERT INTO blob_chunks') && ++chunk === 3) {
          return Promise.reject(new Error('connection lost (injected) at the third chunk'));
        }
        return query(...queryArgs);
      });
      const restoreRelease = around(client, 'release', (release, releaseArgs) => {
        released++;
        restoreQuery();
        restoreRelease();
        return release(...releaseArgs);
      });
      return client;
    });

    await expect(store.put('job_half-1', randomBytes(5 * CHUNK_BYTES))).rejects.toThrow(/injected/);
    await expect(store.put('job_new-1', randomBytes(5 * CHUNK_BYTES))).rejects.toThrow(/injected/);
    expect(released).toBe(2);
    stopFailing();
    expect(sha256(await store.get('job_half-1'))).toBe(sha256(before));
    await expect(store.get('job_new-1')).rejects.toMatchObject({ code: 'ENOENT' });
    const keys = [];
    for await (const file of store.files()) keys.push(file.key);
    expect(keys).toEqual(['job_half-1']);
    const { rows } = await database.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM blob_chunks WHERE key IN ('job_half-1', 'job_new-1')",
    );
    expect(Number(rows[0]!.n)).toBe(3); // the earlier version's chunks, and no stray one
    expect(database.pool.totalCount - database.pool.idleCount).toBe(0); // nothing left checked out
  });

  it('two namespaces keep the same key apart: each lists, removes and sweeps its own', async () => {
    const ns = namespace();
    const results = new DatabaseFileStore(database.pool, `${ns}_results`);
    const captures = new DatabaseFileStore(database.pool, `${ns}_captures`);
    await results.put('mon_a/cap_1', Buffer.from('result'));
    await captures.put('mon_a/cap_1', Buffer.from('capture'));
    await captures.put('mon_a/cap_2', Buffer.from('capture 2'));
    expect((await results.get('mon_a/cap_1')).toString()).toBe('result');
    const listed = async (store: DatabaseFileStore) => {
      const keys = [];
      for await (const file of store.files()) keys.push(file.key);
      return keys;
    };
    expect(await listed(results)).toEqual(['mon_a/cap_1']);
    expect(await listed(captures)).toEqual(['mon_a/cap_1', 'mon_a/cap_2']);
    await captures.removeFolder('mon_a');
    expect(await listed(captures)).toEqual([]);
    expect((await results.get('mon_a/cap_1')).toString()).toBe('result');
  });

  it('files() pages through more keys than one page holds, each once, in key order, also as the sweep removes', async () => {
    const ns = namespace();
    const store = new DatabaseFileStore(database.pool, ns);
    const keys = Array.from({ length: 2345 }, (_, i) => `job_${String(i).padStart(5, '0')}-1`);
    // Rows straight in: the paging is under test, not 2345 puts.
    await database.pool.query(
      `INSERT INTO blobs (namespace, key, size, modified_at, version)
       SELECT $1, k, 0, $2, 'v' FROM unnest($3::text[]) AS k`,
      [ns, new Date().toISOString(), keys],
    );
    const listed = [];
    for await (const file of store.files()) listed.push(file.key);
    expect(listed).toEqual(keys);
    // The orphan sweep removes as it walks: the pages after a removal still hold every key once.
    const kept = keys.filter((_, i) => i % 100 === 0);
    const seen: string[] = [];
    const referenced = (key: string) => (seen.push(key), kept.includes(key));
    expect(await removeOrphans(store, referenced, new Date(Date.now() + 60_000))).toBe(keys.length - kept.length);
    expect(seen).toEqual(keys);
    const left = [];
    for await (const file of store.files()) left.push(file.key);
    expect(left).toEqual(kept);
  });
});
