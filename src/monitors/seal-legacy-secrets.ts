// The one-time pass at start that seals the secrets of monitors created before they were encrypted
// at rest. Sealed values are left alone, so it is safe on every start and does nothing once done.
// The plaintext must not linger in the database files either — in the pages the rewrite frees, or in
// free pages that older edits and deletes left behind — so the rewrite runs with secure_delete (freed
// pages are zeroed) and a pass that sealed anything ends with VACUUM (the file rebuilt from live rows
// only) and a truncating WAL checkpoint. That rewrites the database file, once, on the first start
// that finds plaintext.
import type { MonitorStore } from '../db/monitors.js';
import type { Db } from '../db/open.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { hasPlaintextSecrets, sealPlaintextSecrets } from './capture-secrets.js';

export interface SealLog {
  warn(fields: object, message: string): void;
}

/**
 * How many times the checkpoint is tried. Each try already waits up to the connection's busy_timeout
 * for readers (another process reading the file) to finish, so three are ~15 s at the default 5 s.
 */
const CHECKPOINT_TRIES = 3;

/** Returns the ids of the monitors whose secrets were sealed now. */
export function sealLegacySecrets(db: Db, monitors: MonitorStore, box: SecretBox, log: SealLog): string[] {
  const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
  db.pragma('secure_delete = ON');
  try {
    const sealed = db
      .transaction(() => {
        const ids: string[] = [];
        for (const monitor of monitors.all()) {
          if (!hasPlaintextSecrets(monitor.settings.capture)) continue;
          monitors.rewriteCapture(monitor.id, sealPlaintextSecrets(monitor.settings.capture, box, monitor.id));
          ids.push(monitor.id);
        }
        return ids;
      })
      .immediate();
    if (sealed.length) {
      // The secrets are sealed (committed) whatever happens next; the start goes on if the clean-up
      // cannot run now (another process holds the write lock), and says what is left.
      if (!vacuumed(db)) {
        log.warn(
          { monitors: sealed.length },
          'the secrets are sealed, but another process kept the database busy and it could not be vacuumed: pages freed before this version may still hold the old plaintext; run VACUUM on the database while the service is stopped',
        );
        return sealed;
      }
      // The rebuilt pages are in the WAL and the old ones still in the main file: copy them over and
      // empty the WAL now rather than at some later checkpoint.
      if (!checkpointed(db)) {
        log.warn(
          { monitors: sealed.length },
          'the secrets are sealed, but a reader kept the database busy and the WAL could not be emptied: the old plaintext stays in the database files until the next complete checkpoint',
        );
      }
    }
    return sealed;
  } finally {
    db.pragma(`secure_delete = ${secureDelete}`);
  }
}

function vacuumed(db: Db): boolean {
  try {
    db.exec('VACUUM');
    return true;
  } catch (err) {
    if (
      (err as { code?: string }).code?.startsWith('SQLITE_BUSY') ||
      (err as { code?: string }).code?.startsWith('SQLITE_LOCKED')
    )
      return false;
    throw err;
  }
}

/** A TRUNCATE checkpoint that completed: SQLite reports busy = 1 (and does not say so otherwise) when it could not. */
function checkpointed(db: Db): boolean {
  for (let i = 0; i < CHECKPOINT_TRIES; i++) {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy === 0) return true;
  }
  return false;
}
