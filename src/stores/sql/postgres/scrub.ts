// PostgreSQL's Scrub (see src/stores/scrub.ts; SQLite's is src/stores/sql/sqlite/scrub.ts). PostgreSQL cannot zero the
// space a rewrite frees, so the pass compacts instead: VACUUM FULL rewrites the monitors table (where the
// sealed secrets live) into a new file from live rows only and drops the old one, and a CHECKPOINT gets the
// rewrite onto disk. Old copies may remain in WAL segments until they are recycled, and in the
// filesystem's freed blocks: docs/postgresql.md says so. (A PostgreSQL database is new with this version,
// so it only ever holds plaintext secrets if someone copied them in from an older SQLite file.)
import type pg from 'pg';
import type { Scrub } from '../../scrub.js';

export function postgresScrub(pool: pg.Pool): Scrub {
  return {
    zeroFreedPages: () => () => undefined,
    async compact() {
      try {
        // Takes an exclusive lock on monitors for the rewrite; nodes beside this one wait for it.
        await pool.query('VACUUM FULL monitors');
        return true;
      } catch {
        return false;
      }
    },
    async flush() {
      try {
        await pool.query('CHECKPOINT'); // needs superuser or pg_checkpoint; false (and a warning) without
        return true;
      } catch {
        return false;
      }
    },
  };
}
