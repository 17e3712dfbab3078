-- Monitors that watch anything (issue 27): a capture may also be 'suspect' (the page looks like a failure:
-- a bot check, an empty page, a login wall) or 'filter_missing' (a diff.filters selector matched
-- nothing), and a monitor's last status may say so. SQLite cannot alter a CHECK constraint, so both
-- tables are rebuilt. Order matters with foreign keys on: captures is copied first into a table that
-- references the new monitors, so dropping the old monitors cascades to nothing, and renaming the new
-- monitors rewrites that reference to "monitors".
CREATE TABLE monitors_new (
  id            TEXT PRIMARY KEY,
  key_id        TEXT NOT NULL REFERENCES api_keys(id),
  name          TEXT NOT NULL,
  url           TEXT NOT NULL,
  schedule      TEXT NOT NULL,
  timezone      TEXT NOT NULL,
  paused        INTEGER NOT NULL DEFAULT 0,
  capture       TEXT NOT NULL,               -- JSON: the validated image options (defaults filled)
  diff          TEXT NOT NULL,               -- JSON: the validated diff options (defaults filled)
  notify        TEXT NOT NULL,               -- JSON array: change, failure, capture
  retention     TEXT NOT NULL,               -- JSON: {keep}
  webhook_url   TEXT,
  base_url      TEXT NOT NULL,               -- the service's address as the owner saw it, for absolute image URLs
  -- Bumped when what is captured (url, capture options) changes: a capture is only compared with a
  -- baseline taken the same way, so the first capture after such a change is a new baseline.
  spec_version  INTEGER NOT NULL DEFAULT 1,
  last_run_at   TEXT,
  next_run_at   TEXT,
  last_status   TEXT CHECK (last_status IN ('unchanged', 'changed', 'baseline', 'failed', 'suspect', 'filter_missing')),
  last_change_at TEXT,
  last_tick_at  TEXT,                        -- the newest schedule tick handled: a tick is taken once, even by two instances
  skipped_runs  INTEGER NOT NULL DEFAULT 0,  -- ticks that found the previous capture still running
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  notify_when   TEXT NOT NULL DEFAULT '[]'
);
INSERT INTO monitors_new (id, key_id, name, url, schedule, timezone, paused, capture, diff, notify, retention,
  webhook_url, base_url, spec_version, last_run_at, next_run_at, last_status, last_change_at, last_tick_at,
  skipped_runs, created_at, updated_at, notify_when)
SELECT id, key_id, name, url, schedule, timezone, paused, capture, diff, notify, retention,
  webhook_url, base_url, spec_version, last_run_at, next_run_at, last_status, last_change_at, last_tick_at,
  skipped_runs, created_at, updated_at, notify_when
FROM monitors;

CREATE TABLE captures_new (
  id            TEXT PRIMARY KEY,
  monitor_id    TEXT NOT NULL REFERENCES monitors_new(id) ON DELETE CASCADE,
  status        TEXT NOT NULL CHECK (status IN ('succeeded', 'failed', 'suspect', 'filter_missing')),
  reason        TEXT NOT NULL CHECK (reason IN ('schedule', 'manual', 'catch-up')),
  spec_version  INTEGER NOT NULL,
  taken_at      TEXT NOT NULL,
  duration_ms   INTEGER NOT NULL,
  width         INTEGER,
  height        INTEGER,
  sha256        TEXT,
  image_key     TEXT,
  diff_key      TEXT,
  baseline_id   TEXT,                        -- may outlive its baseline row (retention): an id, not a reference
  changed       INTEGER NOT NULL DEFAULT 0,
  confirmed     INTEGER NOT NULL DEFAULT 0,  -- a second capture was taken before deciding (diff.confirm)
  diff_pixels   INTEGER NOT NULL DEFAULT 0,
  diff_ratio    REAL NOT NULL DEFAULT 0,
  regions       TEXT NOT NULL DEFAULT '[]',
  ignored_boxes TEXT NOT NULL DEFAULT '[]',  -- boxes of diff.ignoreSelectors measured on this capture, image pixels
  truncated     INTEGER NOT NULL DEFAULT 0,
  error_code    TEXT,
  error_message TEXT,
  stored_bytes  INTEGER NOT NULL DEFAULT 0,
  text_key      TEXT,
  text_changes  TEXT NOT NULL DEFAULT '[]',
  text_changes_total INTEGER NOT NULL DEFAULT 0,
  conditions    TEXT NOT NULL DEFAULT '[]',
  condition_errors TEXT NOT NULL DEFAULT '[]',
  conditions_met INTEGER,
  content       TEXT,                        -- JSON: {kind, mediaType, bytes, pages?, pagesRead?, cut?, sha256?}
  product       TEXT                         -- JSON: {price, currency, availability, source}
);
INSERT INTO captures_new (id, monitor_id, status, reason, spec_version, taken_at, duration_ms, width, height,
  sha256, image_key, diff_key, baseline_id, changed, confirmed, diff_pixels, diff_ratio, regions, ignored_boxes,
  truncated, error_code, error_message, stored_bytes, text_key, text_changes, text_changes_total, conditions,
  condition_errors, conditions_met, content, product)
SELECT id, monitor_id, status, reason, spec_version, taken_at, duration_ms, width, height,
  sha256, image_key, diff_key, baseline_id, changed, confirmed, diff_pixels, diff_ratio, regions, ignored_boxes,
  truncated, error_code, error_message, stored_bytes, text_key, text_changes, text_changes_total, conditions,
  condition_errors, conditions_met, content, product
FROM captures;

DROP TABLE captures;
DROP TABLE monitors;
ALTER TABLE monitors_new RENAME TO monitors;
ALTER TABLE captures_new RENAME TO captures;
CREATE INDEX monitors_by_key ON monitors (key_id, created_at DESC, id DESC);
CREATE INDEX captures_by_monitor ON captures (monitor_id, taken_at DESC, id DESC);
CREATE INDEX captures_stored_bytes ON captures (monitor_id, stored_bytes);
