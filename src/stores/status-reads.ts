// What /api/status reads from the database about the whole cluster (every node writes the same tables):
// aggregate figures only — counts, times and byte totals, never ids, names, URLs or keys, since the
// figures may be public (auth.publicOperations).

export interface DeliveryBacklog {
  /** Deliveries waiting to be sent (due now or retrying later). */
  pending: number;
  /** Of those, the ones that failed at least once and wait for a retry. */
  retrying: number;
  /** When the oldest of them was recorded; null when none waits. */
  oldestPendingAt: string | null;
}

export interface StatusReadStore {
  /** Monitors, not paused, whose last run failed. */
  failingMonitors(): Promise<number>;
  deliveryBacklog(): Promise<DeliveryBacklog>;
  /** Deliveries that ended (delivered, or failed for good) at or after `since`. */
  deliveriesEndedSince(since: Date): Promise<{ succeeded: number; failed: number }>;
  /**
   * Bytes kept on disk, as the records count them: the images and diffs of the captures kept, and the
   * results of async jobs not yet removed. No file is read.
   */
  storedBytes(): Promise<{ captures: number; results: number }>;
}
