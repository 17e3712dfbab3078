// Whether the database answers a trivial query (readiness): the same on both backends.
import { sql, type Kysely } from 'kysely';

export async function ping<DB>(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
