// The fair jobs claim on PostgreSQL: the same rules as SQLite's (src/stores/sql/fair-claim.ts — claimable jobs
// of keys not revoked, each key's ranked oldest first, a job's turn is its rank plus the jobs its key has
// running, equal turns oldest first), made safe for many claimers on many connections at once.
// Window functions cannot sit in a SELECT that has FOR UPDATE, so the ranking is done in CTEs over the
// statement's snapshot, and only then are the jobs rows locked, in turn order, with
// `FOR UPDATE OF j SKIP LOCKED`: a row another claimer holds is passed over (not waited for), and a row
// another claimer has claimed and committed since the snapshot is re-checked against the repeated
// claimable condition on its newest version and dropped. So two claimers never hold one job, and the
// LIMIT counts only rows this claimer did lock.
import { sql, type RawBuilder } from 'kysely';
import type { ClaimParams, JobRow } from '../fair-claim.js';

export function pgClaimSql(p: ClaimParams): RawBuilder<JobRow> {
  const claimable = sql`j.status IN ('queued', 'running') AND (j.status = 'queued' OR j.lease_expires_at < ${p.now})
        AND j.attempts < ${p.maxAttempts}`;
  // Each key's first @limit claimable jobs, read in rank order from jobs_claimable_by_key (one short index
  // scan per key, not a sort of the whole queue): a key's later jobs cannot be among the first @limit.
  return sql<JobRow>`WITH claimable AS (
    SELECT c.id, c.key_id, c.created_at, c.key_rank
    FROM api_keys k CROSS JOIN LATERAL (
      SELECT j.id, j.key_id, j.created_at, ROW_NUMBER() OVER (ORDER BY j.created_at, j.id) AS key_rank
      FROM jobs j
      WHERE j.key_id = k.id AND ${claimable}
      ORDER BY j.created_at, j.id
      LIMIT ${p.limit}
    ) c
    WHERE k.revoked_at IS NULL
  ),
  busy AS (
    SELECT key_id, COUNT(*) AS running FROM jobs
    WHERE status IN ('queued', 'running') AND status = 'running' AND lease_expires_at >= ${p.now} GROUP BY key_id
  ),
  turns AS (
    SELECT c.id, c.key_rank + COALESCE(b.running, 0) AS turn, c.created_at
    FROM claimable c LEFT JOIN busy b ON b.key_id = c.key_id
  ),
  picked AS (
    SELECT j.id FROM jobs j JOIN turns t ON t.id = j.id
    WHERE ${claimable}
    ORDER BY t.turn, t.created_at, t.id
    LIMIT ${p.limit}
    FOR UPDATE OF j SKIP LOCKED
  )
  UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, lease_owner = ${p.owner},
    lease_expires_at = ${p.leaseUntil}, started_at = COALESCE(jobs.started_at, ${p.now})
  FROM picked WHERE jobs.id = picked.id
  RETURNING jobs.*`;
}
