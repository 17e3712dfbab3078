// Work one node at a time on PostgreSQL (Backend.runExclusive): a session advisory lock on the name's
// hash, taken without waiting on a connection held for the whole run, so the lock lives exactly as long
// as `fn` (a node that dies mid-run loses its connection, and the lock with it).
import type pg from 'pg';

/** Runs `fn` if no other session holds `name`'s lock now; else resolves undefined at once. */
export async function runExclusive<T>(pool: pg.Pool, name: string, fn: () => Promise<T>): Promise<T | undefined> {
  const client = await pool.connect();
  let locked = false;
  let broken: Error | undefined;
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
      name,
    ]);
    locked = rows[0]!.locked;
    if (!locked) return undefined;
    return await fn();
  } finally {
    if (locked) {
      try {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
      } catch (err) {
        // Unlock failed (the connection broke): destroy it rather than pool a session that may hold the lock.
        broken = err instanceof Error ? err : new Error(String(err));
      }
    }
    client.release(broken);
  }
}
