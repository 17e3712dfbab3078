-- The whole schema as SQLite has it after migrations/sqlite/0001…0010, in PostgreSQL: the same tables,
-- columns, CHECK constraints, foreign keys and (partial) indexes, so the same Kysely stores and row types
-- run on both. Types mirror SQLite's: ids, times and JSON are text (times are ISO-8601 UTC strings from
-- toISOString, fixed width, so they sort and compare as text), flags and counts integer, byte counts
-- bigint (read back as JS numbers: the pool parses int8), ratios double precision.
-- Every text column is COLLATE "C": bytewise, as SQLite's BINARY compares, whatever the database's locale
-- (a locale collation orders ids, cursors and times differently from SQLite and from each other).

CREATE TABLE instance (
  key   text COLLATE "C" PRIMARY KEY,
  value text COLLATE "C" NOT NULL
);
INSERT INTO instance (key, value)
  VALUES ('created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));

-- Only a SHA-256 of the key is stored; the webhook signing secret as issued (it must sign).
CREATE TABLE api_keys (
  id                         text COLLATE "C" PRIMARY KEY,
  name                       text COLLATE "C" NOT NULL,
  key_hash                   text COLLATE "C" NOT NULL UNIQUE,
  key_prefix                 text COLLATE "C" NOT NULL,
  webhook_secret             text COLLATE "C" NOT NULL,
  created_at                 text COLLATE "C" NOT NULL,
  revoked_at                 text COLLATE "C",
  last_used_at               text COLLATE "C",
  previous_webhook_secret    text COLLATE "C",
  previous_secret_expires_at text COLLATE "C"
);

CREATE TABLE jobs (
  id                text COLLATE "C" PRIMARY KEY,
  key_id            text COLLATE "C" NOT NULL REFERENCES api_keys(id),
  kind              text COLLATE "C" NOT NULL CHECK (kind IN ('pdf', 'image', 'capture')),
  status            text COLLATE "C" NOT NULL
                      CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
  request           text COLLATE "C" NOT NULL,  -- JSON: the validated request (kept_request once finished)
  base_url          text COLLATE "C" NOT NULL,
  webhook_url       text COLLATE "C",
  monitor_id        text COLLATE "C",           -- the job's subject (a capture's monitor); no reference
  attempts          integer NOT NULL DEFAULT 0,
  lease_owner       text COLLATE "C",
  lease_expires_at  text COLLATE "C",
  error_code        text COLLATE "C",
  error_message     text COLLATE "C",
  result_key        text COLLATE "C",
  result_type       text COLLATE "C",
  result_bytes      bigint,
  result_meta       text COLLATE "C",
  result_expires_at text COLLATE "C",
  result_removed_at text COLLATE "C",
  created_at        text COLLATE "C" NOT NULL,
  started_at        text COLLATE "C",
  finished_at       text COLLATE "C",
  kept_request      text COLLATE "C" NOT NULL DEFAULT '{}'
);
CREATE INDEX jobs_by_key ON jobs (key_id, created_at DESC, id DESC);
CREATE INDEX jobs_claimable ON jobs (status, created_at) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_claimable_by_key ON jobs (key_id, created_at, id) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_expiring ON jobs (result_expires_at) WHERE result_key IS NOT NULL AND result_removed_at IS NULL;
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX jobs_finished_by_kind ON jobs (kind, finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX jobs_active_by_subject ON jobs (monitor_id)
  WHERE monitor_id IS NOT NULL AND status IN ('queued', 'running');
-- The running jobs of one worker (renew, runningOf, release): SQLite reads them from jobs_claimable.
CREATE INDEX jobs_running_by_owner ON jobs (lease_owner) WHERE status = 'running';

CREATE TABLE idempotency_keys (
  key_id       text COLLATE "C" NOT NULL REFERENCES api_keys(id),
  idem_key     text COLLATE "C" NOT NULL,
  request_hash text COLLATE "C" NOT NULL,
  job_id       text COLLATE "C" NOT NULL REFERENCES jobs(id),
  created_at   text COLLATE "C" NOT NULL,
  PRIMARY KEY (key_id, idem_key)
);
CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);
CREATE INDEX idempotency_by_job ON idempotency_keys (job_id);

CREATE TABLE webhook_deliveries (
  id                   text COLLATE "C" PRIMARY KEY,
  key_id               text COLLATE "C" NOT NULL REFERENCES api_keys(id),
  message_id           text COLLATE "C" NOT NULL UNIQUE,
  event_type           text COLLATE "C" NOT NULL,
  url                  text COLLATE "C" NOT NULL,
  payload              text COLLATE "C" NOT NULL,
  job_id               text COLLATE "C",
  monitor_id           text COLLATE "C",
  status               text COLLATE "C" NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts             integer NOT NULL DEFAULT 0,
  schedule_from        integer NOT NULL DEFAULT 0,
  next_attempt_at      text COLLATE "C",
  lease_expires_at     text COLLATE "C",
  redeliver_requested  integer NOT NULL DEFAULT 0,
  last_attempt_at      text COLLATE "C",
  last_response_status integer,
  last_error           text COLLATE "C",
  created_at           text COLLATE "C" NOT NULL
);
CREATE INDEX deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_key ON webhook_deliveries (key_id, created_at DESC, id DESC);
CREATE INDEX deliveries_finished ON webhook_deliveries (COALESCE(last_attempt_at, created_at))
  WHERE status <> 'pending';

CREATE TABLE webhook_attempts (
  delivery_id     text COLLATE "C" NOT NULL REFERENCES webhook_deliveries(id),
  attempt         integer NOT NULL,
  started_at      text COLLATE "C" NOT NULL,
  duration_ms     integer NOT NULL,
  response_status integer,
  error           text COLLATE "C",
  PRIMARY KEY (delivery_id, attempt)
);

CREATE TABLE monitors (
  id             text COLLATE "C" PRIMARY KEY,
  key_id         text COLLATE "C" NOT NULL REFERENCES api_keys(id),
  name           text COLLATE "C" NOT NULL,
  url            text COLLATE "C" NOT NULL,
  schedule       text COLLATE "C" NOT NULL,
  timezone       text COLLATE "C" NOT NULL,
  paused         integer NOT NULL DEFAULT 0,
  capture        text COLLATE "C" NOT NULL,
  diff           text COLLATE "C" NOT NULL,
  notify         text COLLATE "C" NOT NULL,
  retention      text COLLATE "C" NOT NULL,
  webhook_url    text COLLATE "C",
  base_url       text COLLATE "C" NOT NULL,
  spec_version   integer NOT NULL DEFAULT 1,
  last_run_at    text COLLATE "C",
  next_run_at    text COLLATE "C",
  last_status    text COLLATE "C" CHECK (last_status IN ('unchanged', 'changed', 'baseline', 'failed')),
  last_change_at text COLLATE "C",
  last_tick_at   text COLLATE "C",  -- the newest schedule tick handled: one conditional UPDATE takes a tick once
  skipped_runs   integer NOT NULL DEFAULT 0,
  created_at     text COLLATE "C" NOT NULL,
  updated_at     text COLLATE "C" NOT NULL,
  notify_when    text COLLATE "C" NOT NULL DEFAULT '[]'
);
CREATE INDEX monitors_by_key ON monitors (key_id, created_at DESC, id DESC);

CREATE TABLE captures (
  id                 text COLLATE "C" PRIMARY KEY,
  monitor_id         text COLLATE "C" NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  status             text COLLATE "C" NOT NULL CHECK (status IN ('succeeded', 'failed')),
  reason             text COLLATE "C" NOT NULL CHECK (reason IN ('schedule', 'manual', 'catch-up')),
  spec_version       integer NOT NULL,
  taken_at           text COLLATE "C" NOT NULL,
  duration_ms        integer NOT NULL,
  width              integer,
  height             integer,
  sha256             text COLLATE "C",
  image_key          text COLLATE "C",
  diff_key           text COLLATE "C",
  baseline_id        text COLLATE "C",  -- may outlive its baseline row (retention): an id, not a reference
  changed            integer NOT NULL DEFAULT 0,
  confirmed          integer NOT NULL DEFAULT 0,
  diff_pixels        integer NOT NULL DEFAULT 0,
  diff_ratio         double precision NOT NULL DEFAULT 0,
  regions            text COLLATE "C" NOT NULL DEFAULT '[]',
  ignored_boxes      text COLLATE "C" NOT NULL DEFAULT '[]',
  truncated          integer NOT NULL DEFAULT 0,
  error_code         text COLLATE "C",
  error_message      text COLLATE "C",
  stored_bytes       bigint NOT NULL DEFAULT 0,
  text_key           text COLLATE "C",
  text_changes       text COLLATE "C" NOT NULL DEFAULT '[]',
  text_changes_total integer NOT NULL DEFAULT 0,
  conditions         text COLLATE "C" NOT NULL DEFAULT '[]',
  condition_errors   text COLLATE "C" NOT NULL DEFAULT '[]',
  conditions_met     integer
);
CREATE INDEX captures_by_monitor ON captures (monitor_id, taken_at DESC, id DESC);
CREATE INDEX captures_stored_bytes ON captures (monitor_id, stored_bytes);
