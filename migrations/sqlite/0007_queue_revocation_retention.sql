-- Record retention (jobs.recordTtlDays) finds finished jobs of every kind, and deliveries that are no
-- longer pending, by age.
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX deliveries_finished ON webhook_deliveries (COALESCE(last_attempt_at, created_at)) WHERE status <> 'pending';

-- Revoking a key now stops its work. Keys revoked before this version get the same: their queued and
-- running jobs are canceled (keeping only what a finished job keeps of its request), their monitors
-- paused, their pending webhook deliveries failed.
UPDATE jobs SET status = 'canceled', lease_owner = NULL, lease_expires_at = NULL,
    finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
    request = CASE kind WHEN 'capture' THEN request
      ELSE json_object('filename', json_extract(request, '$.filename'), 'format', json_extract(request, '$.format')) END
  WHERE status IN ('queued', 'running') AND key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NOT NULL);
UPDATE monitors SET paused = 1, next_run_at = NULL
  WHERE paused = 0 AND key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NOT NULL);
UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'not sent: the API key was revoked'
  WHERE status = 'pending' AND key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NOT NULL);

-- Fair claiming ranks each key's claimable jobs oldest first: this index hands them over in that order.
CREATE INDEX jobs_claimable_by_key ON jobs (key_id, created_at, id) WHERE status IN ('queued', 'running');
