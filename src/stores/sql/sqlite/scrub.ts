// SQLite's Scrub: secure_delete zeroes freed pages, VACUUM rebuilds the file from live rows only, and a
// truncating WAL checkpoint copies the rebuilt pages over the old ones and empties the WAL.
import type { Scrub } from '../../scrub.js';
import type { Db } from './connection.js';

/**
 * How many times the checkpoint is tried. Each try already waits up to the connection's busy_timeout
 * for readers (another process reading the file) to finish, so three are ~15 s at the default 5 s.
 */
const CHECKPOINT_TRIES = 3;

export function sqliteScrub(db: Db): Scrub {
  return {
    zeroFreedPages() {
      const before = db.pragma('secure_delete', { simple: true }) as number;
      db.pragma('secure_delete = ON');
      return () => void db.pragma(`secure_delete = ${before}`);
    },
    compact() {
      try {
        db.exec('VACUUM');
        return Promise.resolve(true);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code?.startsWith('SQLITE_BUSY') || code?.startsWith('SQLITE_LOCKED')) return Promise.resolve(false);
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
    flush() {
      // A TRUNCATE checkpoint that completed: SQLite reports busy = 1 (and does not say so otherwise)
      // when it could not.
      for (let i = 0; i < CHECKPOINT_TRIES; i++) {
        const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
        if (result?.busy === 0) return Promise.resolve(true);
      }
      return Promise.resolve(false);
    },
  };
}
