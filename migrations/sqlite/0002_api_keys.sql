-- API keys. Only a SHA-256 of the key is stored (keys are 192 random bits, so a fast hash is safe);
-- the webhook signing secret must be usable to sign, so it is stored as issued.
CREATE TABLE api_keys (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  key_hash       TEXT NOT NULL UNIQUE,
  key_prefix     TEXT NOT NULL,
  webhook_secret TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  revoked_at     TEXT,
  last_used_at   TEXT
);
