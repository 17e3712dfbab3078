-- Captures that read a failure (suspect) or lost their filter (filter_missing) (issue 27), and the same
-- as a monitor's last status.
ALTER TABLE captures DROP CONSTRAINT captures_status_check,
  ADD CONSTRAINT captures_status_check CHECK (status IN ('succeeded', 'failed', 'suspect', 'filter_missing'));
ALTER TABLE monitors DROP CONSTRAINT monitors_last_status_check,
  ADD CONSTRAINT monitors_last_status_check
  CHECK (last_status IN ('unchanged', 'changed', 'baseline', 'failed', 'suspect', 'filter_missing'));
