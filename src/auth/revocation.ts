// Revoking a key stops everything it set going, in the same transaction as the revocation: its queued
// and running jobs (monitor captures included) are canceled, its monitors paused, its pending webhook
// deliveries failed. A service running on the same database in another process needs no message: its
// worker sees on its next poll that its running jobs are no longer its own and stops their renders,
// its scheduler drops a paused monitor at its next tick, and neither the worker nor the dispatcher ever
// claims work of a revoked key (see fair-claim.ts and DeliveryStore.failRevoked).
import type { Backend } from '../stores/backend.js';
import { REVOKED_REASON } from '../stores/webhook-deliveries.js';

export interface Revocation {
  /** False if the key had been revoked before (its work is stopped again all the same). */
  revokedNow: boolean;
  /** Jobs canceled: an in-process caller can stop their renders at once. */
  canceledJobs: string[];
  pausedMonitors: number;
  failedDeliveries: number;
}

export class KeyRevocation {
  constructor(private readonly backend: Pick<Backend, 'transaction'>) {}

  /** Revoke the key and stop its work; undefined if there is no key with this id. */
  revoke(keyId: string, now = new Date()): Promise<Revocation | undefined> {
    return this.backend.transaction(async (tx): Promise<Revocation | undefined> => {
      if (!(await tx.keys.get(keyId))) return undefined;
      const revokedNow = await tx.keys.revoke(keyId, now);
      const stopped = await tx.keyData.stopWork(keyId, REVOKED_REASON, now);
      return {
        revokedNow,
        canceledJobs: stopped.jobs,
        pausedMonitors: stopped.monitors,
        failedDeliveries: stopped.deliveries,
      };
    });
  }
}
