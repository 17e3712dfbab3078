// Revoking a key stops everything it set going, in the same transaction as the revocation: its queued
// and running jobs (monitor captures included) are canceled, its monitors paused, its pending webhook
// deliveries failed. A service running on the same database in another process needs no message: its
// worker sees on its next poll that its running jobs are no longer its own and stops their renders,
// its scheduler drops a paused monitor at its next tick, and neither the worker nor the dispatcher ever
// claims work of a revoked key (see fair-claim.ts and DeliveryStore.failRevoked).
import type { ApiKeyStore } from '../db/api-keys.js';
import type { KeyDataStore } from '../db/key-data.js';
import type { Db } from '../db/open.js';
import { REVOKED_REASON } from '../db/webhook-deliveries.js';

export interface Revocation {
  /** False if the key had been revoked before (its work is stopped again all the same). */
  revokedNow: boolean;
  /** Jobs canceled: an in-process caller can stop their renders at once. */
  canceledJobs: string[];
  pausedMonitors: number;
  failedDeliveries: number;
}

export class KeyRevocation {
  constructor(
    private readonly db: Db,
    private readonly keys: ApiKeyStore,
    private readonly data: KeyDataStore,
  ) {}

  /** Revoke the key and stop its work; undefined if there is no key with this id. */
  revoke(keyId: string, now = new Date()): Revocation | undefined {
    return this.db
      .transaction((): Revocation | undefined => {
        if (!this.keys.get(keyId)) return undefined;
        const revokedNow = this.keys.revoke(keyId, now);
        const stopped = this.data.stopWork(keyId, REVOKED_REASON, now);
        return {
          revokedNow,
          canceledJobs: stopped.jobs,
          pausedMonitors: stopped.monitors,
          failedDeliveries: stopped.deliveries,
        };
      })
      .immediate();
  }
}
