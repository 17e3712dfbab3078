-- Durable async jobs, idempotency keys and the webhook outbox. Times are ISO-8601 UTC strings
-- (toISOString: fixed width, so they compare correctly as text).

CREATE TABLE jobs (
  id                TEXT PRIMARY KEY,
  key_id            TEXT NOT NULL REFERENCES api_keys(id),
  kind              TEXT NOT NULL CHECK (kind IN ('pdf', 'image')),
  status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
  request           TEXT NOT NULL,            -- the validated render request, JSON
  base_url          TEXT NOT NULL,            -- the service's address as the submitter saw it, for absolute result URLs
  webhook_url       TEXT,
  attempts          INTEGER NOT NULL DEFAULT 0,
  lease_owner       TEXT,                     -- the worker holding a running job
  lease_expires_at  TEXT,                     -- past this, the worker is presumed dead and the job is claimed again
  error_code        TEXT,
  error_message     TEXT,
  result_key        TEXT,                     -- where the result store keeps the bytes
  result_type       TEXT,
  result_bytes      INTEGER,
  result_meta       TEXT,                     -- JSON: renderMs, finalUrl, pageCount, truncated
  result_expires_at TEXT,
  result_removed_at TEXT,                     -- set by the sweeper once the file is gone
  created_at        TEXT NOT NULL,
  started_at        TEXT,
  finished_at       TEXT
);
CREATE INDEX jobs_by_key ON jobs (key_id, created_at DESC, id DESC);
CREATE INDEX jobs_claimable ON jobs (status, created_at) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_expiring ON jobs (result_expires_at) WHERE result_key IS NOT NULL AND result_removed_at IS NULL;

-- Idempotency-Key → the job it made, per API key, with a hash of the request it came with.
CREATE TABLE idempotency_keys (
  key_id       TEXT NOT NULL REFERENCES api_keys(id),
  idem_key     TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  job_id       TEXT NOT NULL REFERENCES jobs(id),
  created_at   TEXT NOT NULL,
  PRIMARY KEY (key_id, idem_key)
);
CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);

-- One row per event to tell a receiver (the outbox). Written in the same transaction as the state
-- change it reports, so a crash can lose neither. `message_id` is the webhook-id of every attempt.
CREATE TABLE webhook_deliveries (
  id                   TEXT PRIMARY KEY,
  key_id               TEXT NOT NULL REFERENCES api_keys(id),
  message_id           TEXT NOT NULL UNIQUE,
  event_type           TEXT NOT NULL,
  url                  TEXT NOT NULL,
  payload              TEXT NOT NULL,
  job_id               TEXT,
  monitor_id           TEXT,
  status               TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts             INTEGER NOT NULL DEFAULT 0,
  schedule_from        INTEGER NOT NULL DEFAULT 0, -- attempts made before the retry schedule (re)started (redeliver)
  next_attempt_at      TEXT,
  lease_expires_at     TEXT,                       -- an attempt in flight; past this it is presumed lost
  redeliver_requested  INTEGER NOT NULL DEFAULT 0,  -- a redeliver asked for while an attempt was in flight
  last_attempt_at      TEXT,
  last_response_status INTEGER,
  last_error           TEXT,
  created_at           TEXT NOT NULL
);
CREATE INDEX deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_key ON webhook_deliveries (key_id, created_at DESC, id DESC);

-- Every attempt, for the delivery log.
CREATE TABLE webhook_attempts (
  delivery_id     TEXT NOT NULL REFERENCES webhook_deliveries(id),
  attempt         INTEGER NOT NULL,
  started_at      TEXT NOT NULL,
  duration_ms     INTEGER NOT NULL,
  response_status INTEGER,
  error           TEXT,
  PRIMARY KEY (delivery_id, attempt)
);

-- Secret rotation: the previous secret keeps signing (next to the new one) until it expires.
ALTER TABLE api_keys ADD COLUMN previous_webhook_secret TEXT;
ALTER TABLE api_keys ADD COLUMN previous_secret_expires_at TEXT;
