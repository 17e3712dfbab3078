// The row side of the jobs store on SQLite: a row as a JobRecord, the columns every statement that ends a
// job sets, the unfinished-status literals the partial indexes need, and the list's keyset cursor. Apart
// from jobs.ts because the job-ending statements (job-endings.ts) and a key's bulk stop (key-data.ts) use
// them too.
import { sql, type ExpressionBuilder, type Selectable, type UpdateObject } from 'kysely';
import type { JobRecord, JobRequest } from '../jobs.js';
import type { JobStatus, ResultMeta } from '../../domain/job-outcome.js';
import type { DB, JobsTable } from './schema.js';

// Literals, not parameters: SQLite uses the partial indexes on unfinished jobs (`WHERE status IN
// ('queued', 'running')`) only when a query repeats that condition with the same literal values.
export const ACTIVE = [sql.lit('queued'), sql.lit('running')];

type Row = Selectable<JobsTable>;
type Eb = ExpressionBuilder<DB, 'jobs'>;

export function toRecord(r: Row): JobRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    kind: r.kind,
    status: r.status as JobStatus,
    request: JSON.parse(r.request) as JobRequest,
    baseUrl: r.base_url,
    webhookUrl: r.webhook_url,
    subject: r.monitor_id,
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

/** What every statement that ends a job sets: no lease, the finish time, only the kept request. */
/**
 * The columns of a job that ends now. It keeps only what its runner chose at submission (kept_request):
 * headers, cookies and credentials it ran with are dropped. Also used where a key's work ends in bulk.
 */
export function ended(status: JobStatus, now: Date) {
  return (eb: Eb): UpdateObject<DB, 'jobs'> => ({
    status,
    lease_owner: null,
    lease_expires_at: null,
    finished_at: now.toISOString(),
    request: eb.ref('kept_request'),
  });
}

/** The list's keyset cursor, newest first: the jobs before `before` in (created_at, id) order. */
export function olderThan(before: { createdAt: string; id: string }) {
  return (eb: Eb) =>
    eb.or([
      eb('created_at', '<', before.createdAt),
      eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
    ]);
}
