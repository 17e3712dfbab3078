// The statement a worker claims jobs with. Two rules besides "claimable" (queued, or running with a
// lease that ran out, and tries left):
// - Work of a revoked key is never claimed, even a job queued by an instance that had not heard of
//   the revocation yet (the claim transaction cancels such stragglers first; this is the backstop).
// - Keys take turns: each key's claimable jobs are ranked oldest first, and a job's turn is its rank
//   plus the jobs its key has running now. So a key with 1,000 jobs queued holds back another key's
//   single job by at most one render per slot, and equal turns go oldest first.
// Raw SQL: the window functions, INDEXED BY and the partial-index spelling are SQLite's (PostgreSQL's, with
// SKIP LOCKED, is postgres/claims.ts; the stores pick theirs through their SqlFlavor, flavor.ts). One
// UPDATE ... RETURNING, so two workers can never hold one job. Both parts read only
// partial indexes of unfinished jobs (`status IN ('queued', 'running')` is spelled out so SQLite may use
// them), so finished rows, kept for jobs.recordTtlDays, cost nothing here; jobs_claimable_by_key hands
// each key's jobs over already in rank order (no sort of the whole queue). Measured: ~1 ms with 1,000
// jobs queued over 10 keys, ~8 ms with 10,000, ~40 ms with 50,000.
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { JobsTable } from './schema.js';

export interface ClaimParams {
  owner: string;
  limit: number;
  maxAttempts: number;
  /** ISO time. */
  now: string;
  /** ISO time the lease runs out. */
  leaseUntil: string;
}

export type JobRow = Selectable<JobsTable>;

export function claimSql(p: ClaimParams): RawBuilder<JobRow> {
  return sql<JobRow>`UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = ${p.owner},
    lease_expires_at = ${p.leaseUntil}, started_at = COALESCE(started_at, ${p.now})
  WHERE id IN (
    WITH claimable AS (
      SELECT j.id, j.key_id, j.created_at,
        ROW_NUMBER() OVER (PARTITION BY j.key_id ORDER BY j.created_at, j.id) AS key_rank
      FROM jobs j INDEXED BY jobs_claimable_by_key JOIN api_keys k ON k.id = j.key_id AND k.revoked_at IS NULL
      WHERE j.status IN ('queued', 'running') AND (j.status = 'queued' OR j.lease_expires_at < ${p.now})
        AND j.attempts < ${p.maxAttempts}
    ),
    busy AS (
      SELECT key_id, COUNT(*) AS running FROM jobs
      WHERE status IN ('queued', 'running') AND status = 'running' AND lease_expires_at >= ${p.now} GROUP BY key_id
    )
    SELECT c.id FROM claimable c LEFT JOIN busy b ON b.key_id = c.key_id
    WHERE c.key_rank <= ${p.limit} -- a key's later jobs cannot be among the first @limit
    ORDER BY c.key_rank + COALESCE(b.running, 0), c.created_at, c.id
    LIMIT ${p.limit})
  RETURNING *`;
}
