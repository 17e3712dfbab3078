-- Channels (issue 28): where a key's alerts go besides a monitor's signed webhook (email, chat, ntfy, a JSON
-- webhook). A channel's write-only parts (its url, token and header values) are one sealed JSON value in
-- `secrets`; `settings` holds the rest. A monitor lists its channels (NULL: the key's default channels),
-- and the webhook outbox carries channel deliveries beside webhook ones: `channel_id` says whose,
-- `held_for` why a pending one waits (a digest, quiet hours) and `batch` which deliveries go out as one
-- message (the channel and the release time).
CREATE TABLE channels (
  id          text COLLATE "C" PRIMARY KEY,
  key_id      text COLLATE "C" NOT NULL REFERENCES api_keys(id),
  name        text COLLATE "C" NOT NULL,
  type        text COLLATE "C" NOT NULL CHECK (type IN ('email', 'slack', 'discord', 'teams', 'ntfy', 'webhook')),
  settings    text COLLATE "C" NOT NULL,
  secrets     text COLLATE "C",
  is_default  integer NOT NULL DEFAULT 0,
  created_at  text COLLATE "C" NOT NULL,
  updated_at  text COLLATE "C" NOT NULL
);
CREATE INDEX channels_by_key ON channels (key_id, created_at DESC, id DESC);

ALTER TABLE monitors ADD COLUMN channels text COLLATE "C";

ALTER TABLE webhook_deliveries
  ADD COLUMN channel_id text COLLATE "C",
  ADD COLUMN channel_type text COLLATE "C",
  ADD COLUMN held_for text COLLATE "C" CHECK (held_for IN ('digest', 'quiet_hours')),
  ADD COLUMN batch text COLLATE "C";
CREATE INDEX deliveries_by_batch ON webhook_deliveries (batch) WHERE batch IS NOT NULL;
CREATE INDEX deliveries_by_channel ON webhook_deliveries (channel_id, created_at DESC, id DESC)
  WHERE channel_id IS NOT NULL;
