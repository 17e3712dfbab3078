-- Channels (issue 28): where a key's alerts go besides a monitor's signed webhook (email, chat, ntfy, a JSON
-- webhook). A channel's write-only parts (its url, token and header values) are one sealed JSON value in
-- `secrets`; `settings` holds the rest. A monitor lists its channels (NULL: the key's default channels),
-- and the webhook outbox carries channel deliveries beside webhook ones: `channel_id` says whose,
-- `held_for` why a pending one waits (a digest, quiet hours) and `batch` which deliveries go out as one
-- message (the channel and the release time).
CREATE TABLE channels (
  id          TEXT PRIMARY KEY,
  key_id      TEXT NOT NULL REFERENCES api_keys(id),
  name        TEXT NOT NULL,
  type        TEXT NOT NULL CHECK (type IN ('email', 'slack', 'discord', 'teams', 'ntfy', 'webhook')),
  settings    TEXT NOT NULL,              -- JSON: recipients, templates, digest, quiet hours, what is shown of the secrets
  secrets     TEXT,                       -- sealed JSON: {url?, token?, headers?}
  is_default  INTEGER NOT NULL DEFAULT 0, -- alerts every monitor of the key that lists no channels
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX channels_by_key ON channels (key_id, created_at DESC, id DESC);

ALTER TABLE monitors ADD COLUMN channels TEXT; -- JSON array of channel ids; NULL: the key's default channels

ALTER TABLE webhook_deliveries ADD COLUMN channel_id TEXT;   -- an id, not a reference: the log outlives a deleted channel
ALTER TABLE webhook_deliveries ADD COLUMN channel_type TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN held_for TEXT CHECK (held_for IN ('digest', 'quiet_hours'));
ALTER TABLE webhook_deliveries ADD COLUMN batch TEXT;        -- "<channel id>@<release time>": sent as one message
CREATE INDEX deliveries_by_batch ON webhook_deliveries (batch) WHERE batch IS NOT NULL;
CREATE INDEX deliveries_by_channel ON webhook_deliveries (channel_id, created_at DESC, id DESC)
  WHERE channel_id IS NOT NULL;
