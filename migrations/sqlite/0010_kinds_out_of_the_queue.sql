-- The queue knows no job kinds (issue 12). What a finished job keeps of its request is decided by its
-- kind's runner when the job is queued and stored beside it, so every statement that ends jobs — one at
-- a time or in bulk — applies it without a CASE on the kind. Existing rows get what that CASE kept.
ALTER TABLE jobs ADD COLUMN kept_request TEXT NOT NULL DEFAULT '{}';
UPDATE jobs SET kept_request = CASE kind WHEN 'capture' THEN request
  ELSE json_object('filename', json_extract(request, '$.filename'), 'format', json_extract(request, '$.format')) END;

-- The queries name the kind (and the subject, a capture job's monitor_id) as parameters now, which a
-- partial index on `kind = 'capture'` cannot serve: index them for any kind instead.
DROP INDEX jobs_finished_captures;
CREATE INDEX jobs_finished_by_kind ON jobs (kind, finished_at) WHERE finished_at IS NOT NULL;
DROP INDEX jobs_active_capture;
CREATE INDEX jobs_active_by_subject ON jobs (monitor_id) WHERE monitor_id IS NOT NULL AND status IN ('queued', 'running');
