// Everything one API key owns, across tables: stopping it all when the key is revoked, and deleting it
// all when the key is purged. Callers run each method inside one transaction (`tx.keyData`).

/** What a revocation stopped. */
export interface StoppedWork {
  /** The jobs canceled (queued or running), so an in-process caller can stop their renders. */
  jobs: string[];
  monitors: number;
  deliveries: number;
}

/** What a purge deleted: rows per table, and the stored files they held (to remove after commit). */
export interface PurgedRows {
  jobs: number;
  monitors: number;
  captures: number;
  deliveries: number;
  attempts: number;
  idempotencyKeys: number;
  /** Every job of the key that ran: each try may have stored a result file under its own name. */
  triedJobs: { jobId: string; attempts: number }[];
  /** Results that were still offered for download. */
  storedResults: number;
  /** Folders of the key's monitors in the capture store. */
  monitorIds: string[];
}

export interface KeyDataStore {
  /** Cancel the key's queued and running jobs, pause its monitors, fail its pending deliveries with `deliveryError`. */
  stopWork(keyId: string, deliveryError: string, now: Date): Promise<StoppedWork>;
  /** Delete every row of the key and the key itself; undefined if there is no such key. */
  deleteAll(keyId: string): Promise<PurgedRows | undefined>;
}
