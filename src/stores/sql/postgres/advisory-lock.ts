// Work one node at a time on PostgreSQL (Backend.runExclusive): an advisory lock on the name's hash, taken
// without waiting, inside a transaction held open on one connection for the whole run. A transaction's
// lock (pg_try_advisory_xact_lock) ends with the transaction, so the lock lives exactly as long as `fn`,
// even behind PgBouncer in transaction mode, which pins a server connection to a client only while its
// transaction is open: a session lock taken there stays with whichever server connection took it, and the
// unlock may run on another. A node that dies mid-run loses its connection, and the lock with it. The open
// transaction holds no snapshot between statements (READ COMMITTED) and writes nothing, so it holds back
// no vacuum; `fn`'s own queries run on other connections.
import type pg from 'pg';

/** Runs `fn` if no other session holds `name`'s lock now; else resolves undefined at once. */
export async function runExclusive<T>(pool: pg.Pool, name: string, fn: () => Promise<T>): Promise<T | undefined> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked',
      [name],
    );
    if (!rows[0]!.locked) return undefined;
    return await fn();
  } finally {
    try {
      await client.query('COMMIT'); // releases the lock
    } catch (err) {
      // The connection broke: destroy it rather than pool a session that may still be in the transaction.
      broken = err instanceof Error ? err : new Error(String(err));
    }
    client.release(broken);
  }
}
