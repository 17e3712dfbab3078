// Deleting a key for good (`pagewatch keys delete ID --purge`): it is revoked first, in its own
// transaction, so a service running on the same database stops its work; then every row the key owns
// is deleted in one transaction; then the files those rows held. A file left behind by a crash between
// the two is one no row refers to, which the sweeper's orphan pass removes.
import { resultKey } from '../jobs/render-job.js';
import type { FileStore } from '../stores/file-store.js';
import type { Backend } from '../stores/backend.js';
import type { KeyRevocation, Revocation } from './revocation.js';

export interface PurgeReport {
  revocation: Revocation;
  jobs: number;
  /** Results that were still offered for download (their files are removed, with any a failed try left). */
  results: number;
  monitors: number;
  captures: number;
  deliveries: number;
  attempts: number;
  idempotencyKeys: number;
}

export class KeyPurge {
  constructor(
    private readonly backend: Pick<Backend, 'transaction'>,
    private readonly revocation: KeyRevocation,
    private readonly results: FileStore,
    private readonly captureFiles: FileStore,
  ) {}

  /** Undefined if there is no key with this id. */
  async purge(keyId: string, now = new Date()): Promise<PurgeReport | undefined> {
    const revocation = await this.revocation.revoke(keyId, now);
    if (!revocation) return undefined;
    const rows = await this.backend.transaction((tx) => tx.keyData.deleteAll(keyId));
    if (!rows) return undefined; // deleted by someone else meanwhile
    for (const { jobId, attempts } of rows.triedJobs) {
      // Every try stored under its own name; a try that died may have left its file.
      for (let attempt = 1; attempt <= attempts; attempt++) await this.results.remove(resultKey(jobId, attempt));
    }
    for (const monitorId of rows.monitorIds) await this.captureFiles.removeFolder(monitorId);
    return {
      revocation,
      jobs: rows.jobs,
      results: rows.storedResults,
      monitors: rows.monitors,
      captures: rows.captures,
      deliveries: rows.deliveries,
      attempts: rows.attempts,
      idempotencyKeys: rows.idempotencyKeys,
    };
  }
}
