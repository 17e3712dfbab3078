// The database server's time, read once: clock_timestamp() (the time of the call, not of the transaction).
import type pg from 'pg';

export async function readDatabaseTime(pool: Pick<pg.Pool, 'query'>): Promise<Date> {
  const { rows } = await pool.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return rows[0]!.now;
}
