// The webhook outbox (webhook_deliveries) and its attempt log (webhook_attempts).
import type { Db } from './open.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export interface DeliveryRecord {
  id: string;
  keyId: string;
  messageId: string;
  eventType: string;
  url: string;
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
  limit: number;
  before?: { createdAt: string; id: string };
}

/** The last error of a delivery that was not sent because its key was revoked. */
export const REVOKED_REASON = 'not sent: the API key was revoked';

const COLUMNS = `id, key_id AS keyId, message_id AS messageId, event_type AS eventType, url, payload, job_id AS jobId,
  monitor_id AS monitorId, status, attempts, schedule_from AS scheduleFrom, next_attempt_at AS nextAttemptAt,
  last_attempt_at AS lastAttemptAt, last_response_status AS lastResponseStatus, last_error AS lastError, created_at AS createdAt`;

export class DeliveryStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert:
        db.prepare(`INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, job_id, monitor_id,
          status, next_attempt_at, created_at)
        VALUES (@id, @keyId, @messageId, @eventType, @url, @payload, @jobId, @monitorId, 'pending', @now, @now)`),
      // The lease covers one attempt in flight; a process that dies mid-attempt leaves it to run out,
      // and the delivery is tried again with the same message id (receivers de-duplicate on it).
      claimDue: db.prepare(`UPDATE webhook_deliveries SET lease_expires_at = @leaseUntil
        WHERE id IN (SELECT id FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= @now AND (lease_expires_at IS NULL OR lease_expires_at < @now)
            AND key_id NOT IN (SELECT id FROM api_keys WHERE revoked_at IS NOT NULL)
          ORDER BY next_attempt_at, id LIMIT @limit)
        RETURNING ${COLUMNS}`),
      nextDue: db.prepare(`SELECT MIN(MAX(next_attempt_at, COALESCE(lease_expires_at, ''))) AS at
        FROM webhook_deliveries WHERE status = 'pending'`),
      insertAttempt:
        db.prepare(`INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error)
        VALUES (@id, @attempt, @startedAt, @durationMs, @responseStatus, @error)`),
      // A redeliver asked for during the attempt wins over the attempt's own outcome: send again now.
      afterAttempt: db.prepare(`UPDATE webhook_deliveries SET attempts = @attempt,
          status = CASE WHEN redeliver_requested = 1 THEN 'pending' ELSE @status END,
          next_attempt_at = CASE WHEN redeliver_requested = 1 THEN @now ELSE @nextAttemptAt END,
          schedule_from = CASE WHEN redeliver_requested = 1 THEN @attempt ELSE schedule_from END,
          redeliver_requested = 0, lease_expires_at = NULL,
          last_attempt_at = @startedAt, last_response_status = @responseStatus, last_error = @error
        WHERE id = @id AND status = 'pending'`), // failed meanwhile (its key was revoked): it stays failed
      // A revoked key's events are not sent; also those recorded by an instance that had not heard of it yet.
      // Run before every claim: `+key_id` keeps SQLite on the small index of pending deliveries rather
      // than walking every delivery a revoked key ever had.
      failRevoked:
        db.prepare(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = @reason
        WHERE status = 'pending' AND +key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NOT NULL)`),
      stopForUrl: db.prepare(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
          last_error = @reason WHERE key_id = @keyId AND url = @url AND status = 'pending' AND id <> @id AND lease_expires_at IS NULL`),
      get: db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = ? AND key_id = ?`),
      attempts:
        db.prepare(`SELECT attempt, started_at AS startedAt, duration_ms AS durationMs, response_status AS responseStatus, error
        FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt`),
      list: db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE key_id = @keyId
          AND (@jobId IS NULL OR job_id = @jobId) AND (@monitorId IS NULL OR monitor_id = @monitorId)
          AND (@status IS NULL OR status = @status)
          AND (@beforeAt IS NULL OR created_at < @beforeAt OR (created_at = @beforeAt AND id < @beforeId))
        ORDER BY created_at DESC, id DESC LIMIT @limit`),
      redeliver:
        db.prepare(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = @now, schedule_from = attempts,
          redeliver_requested = CASE WHEN lease_expires_at > @now THEN 1 ELSE 0 END
        WHERE id = @id AND key_id = @keyId RETURNING ${COLUMNS}`),
      countByStatus: db.prepare('SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status'),
    };
  }

  /** Part of the caller's transaction: the event is recorded together with what it reports. */
  insert(d: NewDelivery, now: Date): void {
    this.stmts.insert.run({ ...d, jobId: d.jobId ?? null, monitorId: d.monitorId ?? null, now: now.toISOString() });
  }

  claimDue(limit: number, leaseMs: number, now: Date): DeliveryRecord[] {
    if (limit <= 0) return [];
    return this.stmts.claimDue.all({
      limit,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
    }) as DeliveryRecord[];
  }

  /** When the earliest pending delivery becomes claimable, if any is pending. */
  nextDueAt(): Date | undefined {
    const at = (this.stmts.nextDue.get() as { at: string | null }).at;
    return at ? new Date(at) : undefined;
  }

  recordAttempt(d: DeliveryRecord, outcome: AttemptOutcome): void {
    const attempt = d.attempts + 1;
    const common = {
      id: d.id,
      attempt,
      startedAt: outcome.startedAt.toISOString(),
      responseStatus: outcome.responseStatus ?? null,
      error: outcome.error ?? null,
    };
    this.db.transaction(() => {
      this.stmts.insertAttempt.run({ ...common, durationMs: outcome.durationMs });
      this.stmts.afterAttempt.run({
        ...common,
        status: outcome.status,
        nextAttemptAt: outcome.nextAttemptAt?.toISOString() ?? null,
        now: new Date().toISOString(),
      });
    })();
  }

  /** Fail the pending deliveries of every revoked key; how many. */
  failRevoked(): number {
    return this.stmts.failRevoked.run({ reason: REVOKED_REASON }).changes;
  }

  /** The receiver answered 410 Gone: nothing more is sent to that URL for this key. */
  stopForUrl(d: DeliveryRecord, reason: string): number {
    return this.stmts.stopForUrl.run({ keyId: d.keyId, url: d.url, id: d.id, reason }).changes;
  }

  get(keyId: string, id: string): DeliveryRecord | undefined {
    return this.stmts.get.get(id, keyId) as DeliveryRecord | undefined;
  }

  attempts(id: string): AttemptRecord[] {
    return this.stmts.attempts.all(id) as AttemptRecord[];
  }

  list(keyId: string, q: DeliveryQuery): DeliveryRecord[] {
    return this.stmts.list.all({
      keyId,
      jobId: q.jobId ?? null,
      monitorId: q.monitorId ?? null,
      status: q.status ?? null,
      limit: q.limit,
      beforeAt: q.before?.createdAt ?? null,
      beforeId: q.before?.id ?? null,
    }) as DeliveryRecord[];
  }

  /** Send again now, with the retry schedule started over. */
  redeliver(keyId: string, id: string, now: Date): DeliveryRecord | undefined {
    return this.stmts.redeliver.get({ id, keyId, now: now.toISOString() }) as DeliveryRecord | undefined;
  }

  countByStatus(): Record<DeliveryStatus, number> {
    const counts = { pending: 0, succeeded: 0, failed: 0 };
    for (const { status, n } of this.stmts.countByStatus.all() as { status: DeliveryStatus; n: number }[])
      counts[status] = n;
    return counts;
  }
}
