// The statement a worker claims jobs with. Two rules besides "claimable" (queued, or running with a
// lease that ran out, and tries left):
// - Work of a revoked key is never claimed, even a job queued by an instance that had not heard of
//   the revocation yet (the claim transaction cancels such stragglers first; this is the backstop).
// - Keys take turns: each key's claimable jobs are ranked oldest first, and a job's turn is its rank
//   plus the jobs its key has running now. So a key with 1,000 jobs queued holds back another key's
//   single job by at most one render per slot, and equal turns go oldest first.
// The same UPDATE ... RETURNING as before, so two workers can never hold one job.
export const CLAIM_SQL = `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = @owner,
    lease_expires_at = @leaseUntil, started_at = COALESCE(started_at, @now)
  WHERE id IN (
    WITH claimable AS (
      SELECT j.id, j.key_id, j.created_at,
        ROW_NUMBER() OVER (PARTITION BY j.key_id ORDER BY j.created_at, j.id) AS key_rank
      FROM jobs j JOIN api_keys k ON k.id = j.key_id AND k.revoked_at IS NULL
      WHERE (j.status = 'queued' OR (j.status = 'running' AND j.lease_expires_at < @now)) AND j.attempts < @maxAttempts
    ),
    busy AS (
      SELECT key_id, COUNT(*) AS running FROM jobs WHERE status = 'running' AND lease_expires_at >= @now GROUP BY key_id
    )
    SELECT c.id FROM claimable c LEFT JOIN busy b ON b.key_id = c.key_id
    ORDER BY c.key_rank + COALESCE(b.running, 0), c.created_at, c.id
    LIMIT @limit)
  RETURNING *`;
