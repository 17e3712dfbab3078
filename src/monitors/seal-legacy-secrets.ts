// The one-time pass at start that seals the secrets of monitors created before they were encrypted
// at rest. Sealed values are left alone, so it is safe on every start and does nothing once done.
// The plaintext it replaces must not linger in the database files either: the rewrite runs with
// secure_delete (freed bytes are zeroed) and is followed by a truncating WAL checkpoint.
import type { MonitorStore } from '../db/monitors.js';
import type { Db } from '../db/open.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { hasPlaintextSecrets, sealPlaintextSecrets } from './capture-secrets.js';

/** Returns the ids of the monitors whose secrets were sealed now. */
export function sealLegacySecrets(db: Db, monitors: MonitorStore, box: SecretBox): string[] {
  const sealed: string[] = [];
  const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
  db.pragma('secure_delete = ON');
  try {
    db.transaction(() => {
      for (const monitor of monitors.all()) {
        if (!hasPlaintextSecrets(monitor.settings.capture)) continue;
        monitors.rewriteCapture(monitor.id, sealPlaintextSecrets(monitor.settings.capture, box, monitor.id));
        sealed.push(monitor.id);
      }
    }).immediate();
  } finally {
    db.pragma(`secure_delete = ${secureDelete ? 'ON' : 'OFF'}`);
  }
  // The old pages (with the plaintext) may still be in the main file and the new ones only in the
  // WAL: copy them over and empty the WAL now rather than at some later checkpoint.
  if (sealed.length) db.pragma('wal_checkpoint(TRUNCATE)');
  return sealed;
}
