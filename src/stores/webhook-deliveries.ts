// The webhook outbox (one delivery per event and receiver) and its attempt log. A delivery's payload
// is the exact JSON text every attempt sends and signs: it stays text, byte for byte as recorded.
import type { DeliveryStatus } from '../domain/delivery-status.js';

/** The last error of a delivery that was not sent because its key was revoked. */
export const REVOKED_REASON = 'not sent: the API key was revoked';

export interface DeliveryRecord {
  id: string;
  keyId: string;
  /** The webhook-id of every attempt: receivers de-duplicate on it. */
  messageId: string;
  eventType: string;
  url: string;
  /** The body as sent and signed (JSON text, fixed when recorded). */
  payload: string;
  jobId: string | null;
  monitorId: string | null;
  status: DeliveryStatus;
  attempts: number;
  /** Attempts made before the retry schedule (re)started: a redelivery starts it over. */
  scheduleFrom: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
  /** A channel delivery: its channel, and that channel's type when it was recorded. */
  channelId?: string;
  channelType?: string;
  /** Pending and waiting for a digest or the end of quiet hours (nextAttemptAt: its release). */
  heldFor?: HeldFor;
  /** Deliveries of one batch ("<channel id>@<release time>") go out as one message. */
  batch?: string;
}

export type HeldFor = 'digest' | 'quiet_hours';

/** A channel delivery's own fields (NewDelivery). */
export interface ChannelDeliveryFields {
  channelId: string;
  channelType: string;
  /** Held: due at `releaseAt`, sent with the rest of its batch. */
  heldFor?: HeldFor;
  batch?: string;
  releaseAt?: Date;
}

export interface NewDelivery {
  id: string;
  keyId: string;
  messageId: string;
  eventType: string;
  url: string;
  payload: string;
  jobId?: string;
  monitorId?: string;
  /** A channel's delivery (absent: a webhook's). */
  channel?: ChannelDeliveryFields;
}

export interface AttemptRecord {
  attempt: number;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
}

export interface AttemptOutcome {
  startedAt: Date;
  durationMs: number;
  responseStatus?: number;
  error?: string;
  /** The delivery's state after this attempt. */
  status: DeliveryStatus;
  nextAttemptAt?: Date;
}

export interface DeliveryQuery {
  jobId?: string;
  monitorId?: string;
  status?: DeliveryStatus;
  channelId?: string;
  limit: number;
  /** The cursor: only deliveries older than this one (newest first). */
  before?: { createdAt: string; id: string };
}

export interface DeliveryStore {
  /** A pending delivery, due now. Part of the caller's transaction: the event is recorded with what it reports. */
  insert(d: NewDelivery, now: Date): Promise<void>;
  /**
   * Lease up to `limit` due deliveries for `leaseMs` (earliest due first): pending, due by `now`, not
   * leased (or the lease ran out), and not of a revoked key.
   */
  claimDue(limit: number, leaseMs: number, now: Date): Promise<DeliveryRecord[]>;
  /**
   * Lease the rest of a batch with a delivery just claimed: its pending deliveries that are due and not
   * leased (a redelivered one is due before its batch; the batch's others wait for their release).
   */
  claimBatch(batch: string, leaseMs: number, now: Date): Promise<DeliveryRecord[]>;
  /** When the earliest pending delivery becomes claimable (due, and its lease run out), if any is pending. */
  nextDueAt(): Promise<Date | undefined>;
  /**
   * Log the attempt and set the delivery's state by `outcome`, in one transaction. A redeliver asked
   * for during the attempt wins: the delivery is pending and due now. A delivery failed meanwhile (its
   * key revoked) stays failed. `now`: the cluster's time (the dispatcher's clock), this machine's if not given.
   */
  recordAttempt(d: DeliveryRecord, outcome: AttemptOutcome, now?: Date): Promise<void>;
  /** Fail the pending deliveries of every revoked key (REVOKED_REASON); how many. */
  failRevoked(): Promise<number>;
  /**
   * The receiver answered 410 Gone to `d`: fail the key's other pending deliveries to that URL (a channel
   * delivery's: to that channel), except
   * those leased (an attempt in flight records its own outcome); how many.
   */
  stopForUrl(d: DeliveryRecord, reason: string): Promise<number>;
  /** Fail the channel's pending deliveries that are not leased (the channel was deleted); how many. */
  failForChannel(channelId: string, reason: string): Promise<number>;
  /** The key's delivery with this id. */
  get(keyId: string, id: string): Promise<DeliveryRecord | undefined>;
  /** Its attempts, first first. */
  attempts(id: string): Promise<AttemptRecord[]>;
  /** The key's deliveries, newest first, filtered by `q`. */
  list(keyId: string, q: DeliveryQuery): Promise<DeliveryRecord[]>;
  /** Send again now, with the retry schedule started over; undefined if the key has no such delivery. */
  redeliver(keyId: string, id: string, now: Date): Promise<DeliveryRecord | undefined>;
  countByStatus(): Promise<Record<DeliveryStatus, number>>;
}
