-- Captures that read a failure (suspect) or lost their filter (filter_missing) (issue 27), and the same
-- as a monitor's last status. SQLite cannot change a CHECK in place: both tables are rebuilt. The new
-- captures table refers to the new monitors table, so dropping the old ones (captures first) cascades
-- into nothing, and the renames carry the reference over; foreign keys stay on throughout.
CREATE TABLE monitors_v13 (
  id            TEXT PRIMARY KEY,
  key_id        TEXT NOT NULL REFERENCES api_keys(id),
  name          TEXT NOT NULL,
  url           TEXT NOT NULL,
  schedule      TEXT NOT NULL,
  timezone      TEXT NOT NULL,
  paused        INTEGER NOT NULL DEFAULT 0,
  capture       TEXT NOT NULL,               -- JSON: the validated image options (defaults filled)
  diff          TEXT NOT NULL,               -- JSON: the diff settings (defaults filled)
  notify        TEXT NOT NULL,               -- JSON array: change, failure, capture
  retention     TEXT NOT NULL,               -- JSON: {keep}
  webhook_url   TEXT,
  base_url      TEXT NOT NULL,               -- the service's address as the owner saw it, for absolute image URLs
  spec_version  INTEGER NOT NULL DEFAULT 1,  -- bumped when what is captured changes: a new baseline follows
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
INSERT INTO monitors_v13 (id, key_id, name, url, schedule, timezone, paused, capture, diff, notify, retention,
  webhook_url, base_url, spec_version, last_run_at, next_run_at, last_status, last_change_at, last_tick_at,
  skipped_runs, created_at, updated_at, notify_when)
SELECT id, key_id, name, url, schedule, timezone, paused, capture, diff, notify, retention,
  webhook_url, base_url, spec_version, last_run_at, next_run_at, last_status, last_change_at, last_tick_at,
  skipped_runs, created_at, updated_at, notify_when FROM monitors;

CREATE TABLE captures_v13 (
  id            TEXT PRIMARY KEY,
  monitor_id    TEXT NOT NULL REFERENCES monitors_v13(id) ON DELETE CASCADE,
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
INSERT INTO captures_v13 (id, monitor_id, status, reason, spec_version, taken_at, duration_ms, width, height,
  sha256, image_key, diff_key, baseline_id, changed, confirmed, diff_pixels, diff_ratio, regions, ignored_boxes,
  truncated, error_code, error_message, stored_bytes, text_key, text_changes, text_changes_total, conditions,
  condition_errors, conditions_met, content, product)
SELECT id, monitor_id, status, reason, spec_version, taken_at, duration_ms, width, height,
  sha256, image_key, diff_key, baseline_id, changed, confirmed, diff_pixels, diff_ratio, regions, ignored_boxes,
  truncated, error_code, error_message, stored_bytes, text_key, text_changes, text_changes_total, conditions,
  condition_errors, conditions_met, content, product FROM captures;

DROP TABLE captures;
DROP TABLE monitors;
ALTER TABLE monitors_v13 RENAME TO monitors;
ALTER TABLE captures_v13 RENAME TO captures;
CREATE INDEX monitors_by_key ON monitors (key_id, created_at DESC, id DESC);
CREATE INDEX captures_by_monitor ON captures (monitor_id, taken_at DESC, id DESC);
CREATE INDEX captures_stored_bytes ON captures (monitor_id, stored_bytes);
