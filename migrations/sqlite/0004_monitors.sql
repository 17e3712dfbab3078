-- Monitors, their captures, and capture jobs in the durable job queue.

CREATE TABLE monitors (
  id            TEXT PRIMARY KEY,
  key_id        TEXT NOT NULL REFERENCES api_keys(id),
  name          TEXT NOT NULL,
  url           TEXT NOT NULL,
  schedule      TEXT NOT NULL,
  timezone      TEXT NOT NULL,
  paused        INTEGER NOT NULL DEFAULT 0,
  capture       TEXT NOT NULL,               -- JSON: the validated image options (defaults filled)
  diff          TEXT NOT NULL,               -- JSON: threshold, includeAA, minChangeRatio, ignoreRegions, ignoreSelectors, confirm
  notify        TEXT NOT NULL,               -- JSON array: change, failure, capture
  retention     TEXT NOT NULL,               -- JSON: {keep}
  webhook_url   TEXT,
  base_url      TEXT NOT NULL,               -- the service's address as the owner saw it, for absolute image URLs
  -- Bumped when what is captured (url, capture options) changes: a capture is only compared with a
  -- baseline taken the same way, so the first capture after such a change is a new baseline.
  spec_version  INTEGER NOT NULL DEFAULT 1,
  last_run_at   TEXT,
  next_run_at   TEXT,
  last_status   TEXT CHECK (last_status IN ('unchanged', 'changed', 'baseline', 'failed')),
  last_change_at TEXT,
  last_tick_at  TEXT,                        -- the newest schedule tick handled: a tick is taken once, even by two instances
  skipped_runs  INTEGER NOT NULL DEFAULT 0,  -- ticks that found the previous capture still running
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX monitors_by_key ON monitors (key_id, created_at DESC, id DESC);

CREATE TABLE captures (
  id            TEXT PRIMARY KEY,
  monitor_id    TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  status        TEXT NOT NULL CHECK (status IN ('succeeded', 'failed')),
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
  error_message TEXT
);
CREATE INDEX captures_by_monitor ON captures (monitor_id, taken_at DESC, id DESC);

-- Jobs gain the `capture` kind and the monitor it belongs to. SQLite cannot change a CHECK in place:
-- the table is rebuilt. idempotency_keys refers to jobs, so it is set aside and rebuilt after it, which
-- keeps foreign keys on throughout (no row ever points at a missing job).
CREATE TABLE jobs_v4 (
  id                TEXT PRIMARY KEY,
  key_id            TEXT NOT NULL REFERENCES api_keys(id),
  kind              TEXT NOT NULL CHECK (kind IN ('pdf', 'image', 'capture')),
  status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
  request           TEXT NOT NULL,
  base_url          TEXT NOT NULL,
  webhook_url       TEXT,
  monitor_id        TEXT,                     -- capture jobs: the monitor (no reference: a deleted monitor's job ends quietly)
  attempts          INTEGER NOT NULL DEFAULT 0,
  lease_owner       TEXT,
  lease_expires_at  TEXT,
  error_code        TEXT,
  error_message     TEXT,
  result_key        TEXT,
  result_type       TEXT,
  result_bytes      INTEGER,
  result_meta       TEXT,
  result_expires_at TEXT,
  result_removed_at TEXT,
  created_at        TEXT NOT NULL,
  started_at        TEXT,
  finished_at       TEXT
);
INSERT INTO jobs_v4 (id, key_id, kind, status, request, base_url, webhook_url, attempts, lease_owner, lease_expires_at,
    error_code, error_message, result_key, result_type, result_bytes, result_meta, result_expires_at, result_removed_at,
    created_at, started_at, finished_at)
  SELECT id, key_id, kind, status, request, base_url, webhook_url, attempts, lease_owner, lease_expires_at,
    error_code, error_message, result_key, result_type, result_bytes, result_meta, result_expires_at, result_removed_at,
    created_at, started_at, finished_at FROM jobs;
CREATE TABLE idempotency_keys_aside AS SELECT * FROM idempotency_keys;
DROP TABLE idempotency_keys;
DROP TABLE jobs;
ALTER TABLE jobs_v4 RENAME TO jobs;
CREATE INDEX jobs_by_key ON jobs (key_id, created_at DESC, id DESC);
CREATE INDEX jobs_claimable ON jobs (status, created_at) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_expiring ON jobs (result_expires_at) WHERE result_key IS NOT NULL AND result_removed_at IS NULL;
CREATE INDEX jobs_active_capture ON jobs (monitor_id) WHERE kind = 'capture' AND status IN ('queued', 'running');

CREATE TABLE idempotency_keys (
  key_id       TEXT NOT NULL REFERENCES api_keys(id),
  idem_key     TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  job_id       TEXT NOT NULL REFERENCES jobs(id),
  created_at   TEXT NOT NULL,
  PRIMARY KEY (key_id, idem_key)
);
INSERT INTO idempotency_keys SELECT key_id, idem_key, request_hash, job_id, created_at FROM idempotency_keys_aside;
DROP TABLE idempotency_keys_aside;
CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);
