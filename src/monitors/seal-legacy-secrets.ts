// The one-time pass at start that seals the secrets of monitors created before they were encrypted
// at rest. Sealed values are left alone, so it is safe on every start and does nothing once done.
// The plaintext must not linger in the database files either — in the pages the rewrite frees, or in
// free pages that older edits and deletes left behind — so a pass that sealed anything ends with
// VACUUM (the file rebuilt from live rows only) and a truncating WAL checkpoint. That rewrites the
// database file, once, on the first start that finds plaintext.
import type { MonitorStore } from '../db/monitors.js';
import type { Db } from '../db/open.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { hasPlaintextSecrets, sealPlaintextSecrets } from './capture-secrets.js';

/** Returns the ids of the monitors whose secrets were sealed now. */
export function sealLegacySecrets(db: Db, monitors: MonitorStore, box: SecretBox): string[] {
  const sealed = db.transaction(() => {
    const ids: string[] = [];
    for (const monitor of monitors.all()) {
      if (!hasPlaintextSecrets(monitor.settings.capture)) continue;
      monitors.rewriteCapture(monitor.id, sealPlaintextSecrets(monitor.settings.capture, box, monitor.id));
      ids.push(monitor.id);
    }
    return ids;
  }).immediate();
  if (sealed.length) {
    db.exec('VACUUM');
    // The rebuilt pages are in the WAL and the old ones still in the main file: copy them over and
    // empty the WAL now rather than at some later checkpoint.
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  return sealed;
}
