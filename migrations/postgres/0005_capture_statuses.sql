-- Monitors that watch anything (issue 27): a capture may also be 'suspect' (the page looks like a failure:
-- a bot check, an empty page, a login wall) or 'filter_missing' (a diff.filters selector matched
-- nothing), and a monitor's last status may say so.
ALTER TABLE captures DROP CONSTRAINT captures_status_check;
ALTER TABLE captures ADD CONSTRAINT captures_status_check
  CHECK (status IN ('succeeded', 'failed', 'suspect', 'filter_missing'));
ALTER TABLE monitors DROP CONSTRAINT monitors_last_status_check;
ALTER TABLE monitors ADD CONSTRAINT monitors_last_status_check
  CHECK (last_status IN ('unchanged', 'changed', 'baseline', 'failed', 'suspect', 'filter_missing'));
