// The one-time pass at start that seals the secrets of monitors created before they were encrypted
// at rest. Sealed values are left alone, so it is safe on every start and does nothing once done.
// The plaintext must not linger in the database files either — in the pages the rewrite frees, or in
// free pages that older edits and deletes left behind — so the rewrite runs with freed pages zeroed
// and a pass that sealed anything ends by compacting the database (rebuilt from live rows only) and
// flushing its log. On SQLite (src/stores/sql/sqlite/scrub.ts) that rewrites the database file, once, on the first
// start that finds plaintext.
import type { SecretBox } from '../secrets/secret-box.js';
import type { Backend } from '../stores/backend.js';
import type { Scrub } from '../stores/scrub.js';
import { hasPlaintextSecrets, sealPlaintextSecrets } from './capture-secrets.js';

export interface SealLog {
  warn(fields: object, message: string): void;
}

/** Returns the ids of the monitors whose secrets were sealed now. */
export async function sealLegacySecrets(
  backend: Backend,
  scrub: Scrub,
  box: SecretBox,
  log: SealLog,
): Promise<string[]> {
  const restore = scrub.zeroFreedPages();
  try {
    const sealed = await backend.transaction(async (tx) => {
      const ids: string[] = [];
      for (const monitor of await tx.monitors.all()) {
        if (!hasPlaintextSecrets(monitor.settings.capture)) continue;
        await tx.monitors.rewriteCapture(monitor.id, sealPlaintextSecrets(monitor.settings.capture, box, monitor.id));
        ids.push(monitor.id);
      }
      return ids;
    });
    if (sealed.length) {
      // The secrets are sealed (committed) whatever happens next; the start goes on if the clean-up
      // cannot run now (another process holds the write lock), and says what is left.
      if (!(await scrub.compact())) {
        log.warn(
          { monitors: sealed.length },
          'the secrets are sealed, but another process kept the database busy and it could not be vacuumed: ' +
            'pages freed before this version may still hold the old plaintext; run VACUUM on the database while ' +
            'the service is stopped',
        );
        return sealed;
      }
      // The rebuilt pages are in the WAL and the old ones still in the main file: copy them over and
      // empty the WAL now rather than at some later checkpoint.
      if (!(await scrub.flush())) {
        log.warn(
          { monitors: sealed.length },
          'the secrets are sealed, but a reader kept the database busy and the WAL could not be emptied: the ' +
            'old plaintext stays in the database files until the next complete checkpoint',
        );
      }
    }
    return sealed;
  } finally {
    restore();
  }
}
