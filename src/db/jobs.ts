// The jobs table. Workers claim with one `UPDATE ... RETURNING` (PostgreSQL has the same statement,
// plus SKIP LOCKED later), so two workers can never hold one job; every later write names the lease
// owner, so a worker whose lease was taken over (or whose job was canceled) cannot record a result.
import { CLAIM_SQL } from './fair-claim.js';
import type { Db } from './open.js';

/** `capture`: a monitor's scheduled or manual capture; never shown by the jobs API. */
export type JobKind = 'pdf' | 'image' | 'capture';
export type RenderJobKind = Exclude<JobKind, 'capture'>;
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

export interface ResultMeta {
  renderMs: number;
  finalUrl?: string;
  pageCount?: number;
  truncated: boolean;
}

export interface JobRecord {
  id: string;
  keyId: string;
  kind: JobKind;
  status: JobStatus;
  request: string;
  baseUrl: string;
  webhookUrl: string | null;
  monitorId: string | null;
  attempts: number;
  leaseOwner: string | null;
  error: { code: string; message: string } | null;
  result: {
    key: string;
    contentType: string;
    bytes: number;
    meta: ResultMeta;
    expiresAt: string;
    removed: boolean;
  } | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface NewJob {
  id: string;
  keyId: string;
  kind: JobKind;
  request: string;
  baseUrl: string;
  webhookUrl?: string;
  monitorId?: string;
}
export interface StoredResult {
  key: string;
  contentType: string;
  bytes: number;
  meta: ResultMeta;
  expiresAt: string;
}
export interface JobError {
  code: string;
  message: string;
}

interface Row {
  id: string;
  key_id: string;
  kind: JobKind;
  status: JobStatus;
  request: string;
  base_url: string;
  webhook_url: string | null;
  monitor_id: string | null;
  attempts: number;
  lease_owner: string | null;
  error_code: string | null;
  error_message: string | null;
  result_key: string | null;
  result_type: string | null;
  result_bytes: number | null;
  result_meta: string | null;
  result_expires_at: string | null;
  result_removed_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

function toRecord(r: Row): JobRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    kind: r.kind,
    status: r.status,
    request: r.request,
    baseUrl: r.base_url,
    webhookUrl: r.webhook_url,
    monitorId: r.monitor_id,
    attempts: r.attempts,
    leaseOwner: r.lease_owner,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    result: r.result_key
      ? {
          key: r.result_key,
          contentType: r.result_type!,
          bytes: r.result_bytes!,
          meta: JSON.parse(r.result_meta!) as ResultMeta,
          expiresAt: r.result_expires_at!,
          removed: r.result_removed_at !== null,
        }
      : null,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

export interface ListQuery {
  status?: JobStatus;
  limit: number;
  before?: { createdAt: string; id: string };
}

/**
 * A finished job keeps only what its result download needs of the request: headers, cookies and
 * credentials the page was rendered with are not kept at rest once they have served their purpose.
 */
export const KEEP_AFTER_FINISH = `request = CASE kind WHEN 'capture' THEN request -- a monitor id and a reason: nothing secret
  ELSE json_object('filename', json_extract(request, '$.filename'), 'format', json_extract(request, '$.format')) END`;

/** The jobs API shows render jobs only; capture jobs are seen through their monitor. */
const API_KINDS = `kind IN ('pdf', 'image')`;

export class JobStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert:
        db.prepare(`INSERT INTO jobs (id, key_id, kind, status, request, base_url, webhook_url, monitor_id, created_at)
        VALUES (@id, @keyId, @kind, 'queued', @request, @baseUrl, @webhookUrl, @monitorId, @createdAt)`),
      byId: db.prepare('SELECT * FROM jobs WHERE id = ?'),
      byKey: db.prepare(`SELECT * FROM jobs WHERE id = ? AND key_id = ? AND ${API_KINDS}`),
      list: db.prepare(`SELECT * FROM jobs WHERE key_id = @keyId AND ${API_KINDS} AND (@status IS NULL OR status = @status)
        AND (@beforeAt IS NULL OR created_at < @beforeAt OR (created_at = @beforeAt AND id < @beforeId))
        ORDER BY created_at DESC, id DESC LIMIT @limit`),
      // Every kind counts toward jobs.maxQueuedPerKey: a key's monitors share its place in the queue.
      countActive: db.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND status IN ('queued', 'running')`),
      countByStatus: db.prepare(`SELECT status, COUNT(*) AS n FROM jobs WHERE ${API_KINDS} GROUP BY status`),
      activeCapture:
        db.prepare(`SELECT * FROM jobs WHERE monitor_id = ? AND kind = 'capture' AND status IN ('queued', 'running')
        ORDER BY created_at LIMIT 1`),
      cancelCaptures:
        db.prepare(`UPDATE jobs SET status = 'canceled', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now,
          ${KEEP_AFTER_FINISH}
        WHERE monitor_id = @monitorId AND kind = 'capture' AND status IN ('queued', 'running') RETURNING id`),
      // A worker that died leaves its job `running` with a lease that runs out: such a job is
      // claimable again, as long as it has tries left (exhausted ones are failed by `failExhausted`).
      claim: db.prepare(CLAIM_SQL),
      // Stragglers: jobs of a revoked key queued after (or running despite) its revocation.
      cancelRevoked:
        db.prepare(`UPDATE jobs SET status = 'canceled', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now,
          ${KEEP_AFTER_FINISH}
        WHERE status IN ('queued', 'running') AND key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NOT NULL) RETURNING id`),
      // Every poll: read from the partial index of unfinished jobs, not the whole table.
      runningOf: db.prepare(
        `SELECT id FROM jobs WHERE status IN ('queued', 'running') AND status = 'running' AND lease_owner = ?`,
      ),
      failExhausted:
        db.prepare(`UPDATE jobs SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now,
          ${KEEP_AFTER_FINISH}, error_code = COALESCE(error_code, 'internal'),
          error_message = COALESCE(error_message, 'the worker rendering it stopped before finishing, on every try')
        WHERE status = 'running' AND lease_expires_at < @now AND attempts >= @maxAttempts
        RETURNING *`),
      renew: db.prepare(
        `UPDATE jobs SET lease_expires_at = @leaseUntil WHERE lease_owner = @owner AND status = 'running'`,
      ),
      succeed:
        db.prepare(`UPDATE jobs SET status = 'succeeded', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now, ${KEEP_AFTER_FINISH},
          error_code = NULL, error_message = NULL, result_key = @key, result_type = @contentType, result_bytes = @bytes,
          result_meta = @meta, result_expires_at = @expiresAt
        WHERE id = @id AND lease_owner = @owner AND status = 'running' RETURNING *`),
      // A capture job's outcome is its capture row; the job itself holds no result.
      complete:
        db.prepare(`UPDATE jobs SET status = 'succeeded', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now,
          ${KEEP_AFTER_FINISH}, error_code = NULL, error_message = NULL
        WHERE id = @id AND lease_owner = @owner AND status = 'running' RETURNING *`),
      fail: db.prepare(`UPDATE jobs SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now,
          ${KEEP_AFTER_FINISH}, error_code = @code, error_message = @message
        WHERE id = @id AND lease_owner = @owner AND status = 'running' RETURNING *`),
      requeue: db.prepare(`UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL,
          error_code = @code, error_message = @message
        WHERE id = @id AND lease_owner = @owner AND status = 'running'`),
      // A graceful stop hands its unfinished jobs back; the interrupted try does not count.
      release: db.prepare(`UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL,
          attempts = MAX(attempts - 1, 0) WHERE lease_owner = ? AND status = 'running'`),
      cancel:
        db.prepare(`UPDATE jobs SET status = 'canceled', lease_owner = NULL, lease_expires_at = NULL, finished_at = @now,
          ${KEEP_AFTER_FINISH}
        WHERE id = @id AND key_id = @keyId AND ${API_KINDS} AND status IN ('queued', 'running') RETURNING *`),
      expired: db.prepare(`SELECT * FROM jobs WHERE result_key IS NOT NULL AND result_removed_at IS NULL
        AND result_expires_at <= ? ORDER BY result_expires_at LIMIT ?`),
      markRemoved: db.prepare('UPDATE jobs SET result_removed_at = ? WHERE id = ?'),
      holdsResult: db.prepare('SELECT 1 FROM jobs WHERE id = ? AND result_key = ? AND result_removed_at IS NULL'),
      deleteFinishedCaptures: db.prepare(`DELETE FROM jobs WHERE id IN (SELECT id FROM jobs
        WHERE kind = 'capture' AND finished_at IS NOT NULL AND finished_at < ? LIMIT ?)`),
    };
  }

  insert(job: NewJob, now: Date): void {
    this.stmts.insert.run({
      ...job,
      webhookUrl: job.webhookUrl ?? null,
      monitorId: job.monitorId ?? null,
      createdAt: now.toISOString(),
    });
  }

  get(id: string): JobRecord | undefined {
    const row = this.stmts.byId.get(id) as Row | undefined;
    return row && toRecord(row);
  }

  /** The job if it belongs to this key; another key's job is as good as missing. */
  getOwned(keyId: string, id: string): JobRecord | undefined {
    const row = this.stmts.byKey.get(id, keyId) as Row | undefined;
    return row && toRecord(row);
  }

  list(keyId: string, q: ListQuery): JobRecord[] {
    return (
      this.stmts.list.all({
        keyId,
        status: q.status ?? null,
        limit: q.limit,
        beforeAt: q.before?.createdAt ?? null,
        beforeId: q.before?.id ?? null,
      }) as Row[]
    ).map(toRecord);
  }

  countActive(keyId: string): number {
    return (this.stmts.countActive.get(keyId) as { n: number }).n;
  }

  countByStatus(): Record<JobStatus, number> {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const { status, n } of this.stmts.countByStatus.all() as { status: JobStatus; n: number }[])
      counts[status] = n;
    return counts;
  }

  claim(owner: string, limit: number, leaseMs: number, maxAttempts: number, now: Date): JobRecord[] {
    const rows = this.stmts.claim.all({
      owner,
      limit,
      maxAttempts,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
    }) as Row[];
    return rows.map(toRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** Cancel what revoked keys still have queued or running; the ids, so running ones can be stopped. */
  cancelRevoked(now: Date): string[] {
    return (this.stmts.cancelRevoked.all({ now: now.toISOString() }) as { id: string }[]).map((r) => r.id);
  }

  /** The jobs `owner` still holds; a job it runs that is missing here was canceled or taken over. */
  runningOf(owner: string): Set<string> {
    return new Set((this.stmts.runningOf.all(owner) as { id: string }[]).map((r) => r.id));
  }

  failExhausted(maxAttempts: number, now: Date): JobRecord[] {
    return (this.stmts.failExhausted.all({ maxAttempts, now: now.toISOString() }) as Row[]).map(toRecord);
  }

  renew(owner: string, leaseMs: number, now: Date): void {
    this.stmts.renew.run({ owner, leaseUntil: new Date(now.getTime() + leaseMs).toISOString() });
  }

  /** Undefined when the job is no longer this worker's (canceled, or its lease was taken over). */
  succeed(id: string, owner: string, result: StoredResult, now: Date): JobRecord | undefined {
    const row = this.stmts.succeed.get({
      id,
      owner,
      now: now.toISOString(),
      key: result.key,
      contentType: result.contentType,
      bytes: result.bytes,
      meta: JSON.stringify(result.meta),
      expiresAt: result.expiresAt,
    }) as Row | undefined;
    return row && toRecord(row);
  }

  /** A capture job done (its capture is recorded in the same transaction); undefined as for `succeed`. */
  complete(id: string, owner: string, now: Date): JobRecord | undefined {
    const row = this.stmts.complete.get({ id, owner, now: now.toISOString() }) as Row | undefined;
    return row && toRecord(row);
  }

  /** The monitor's capture job that is queued or running, if any. */
  activeCapture(monitorId: string): JobRecord | undefined {
    const row = this.stmts.activeCapture.get(monitorId) as Row | undefined;
    return row && toRecord(row);
  }

  /** Cancel a monitor's pending capture jobs (it is being deleted); the ids, so running ones can be stopped. */
  cancelCaptures(monitorId: string, now: Date): string[] {
    return (this.stmts.cancelCaptures.all({ monitorId, now: now.toISOString() }) as { id: string }[]).map((r) => r.id);
  }

  fail(id: string, owner: string, error: JobError, now: Date): JobRecord | undefined {
    const row = this.stmts.fail.get({ id, owner, now: now.toISOString(), ...error }) as Row | undefined;
    return row && toRecord(row);
  }

  requeue(id: string, owner: string, error: JobError): boolean {
    return this.stmts.requeue.run({ id, owner, ...error }).changes === 1;
  }

  release(owner: string): number {
    return this.stmts.release.run(owner).changes;
  }

  cancel(keyId: string, id: string, now: Date): JobRecord | undefined {
    const row = this.stmts.cancel.get({ id, keyId, now: now.toISOString() }) as Row | undefined;
    return row && toRecord(row);
  }

  expiredResults(now: Date, limit: number): JobRecord[] {
    return (this.stmts.expired.all(now.toISOString(), limit) as Row[]).map(toRecord);
  }

  markResultRemoved(id: string, now: Date): void {
    this.stmts.markRemoved.run(now.toISOString(), id);
  }

  /**
   * Capture jobs that finished before `before`: their outcome is the capture row (kept by the monitor's
   * retention), so the job rows only pile up — one a minute per monitor. Returns how many were deleted.
   */
  deleteFinishedCaptures(before: Date, limit: number): number {
    return this.stmts.deleteFinishedCaptures.run(before.toISOString(), limit).changes;
  }

  /** Whether job `id` still offers the stored result `key`. */
  holdsResult(id: string, key: string): boolean {
    return this.stmts.holdsResult.get(id, key) !== undefined;
  }
}
