-- Atom feeds of a key's changes (issue 28): one row per feed URL. The token itself is never stored, only
-- its SHA-256 (hex), so a copy of the database cannot read anyone's feed. A monitor's feeds go with it.
CREATE TABLE feeds (
  id          TEXT PRIMARY KEY,
  key_id      TEXT NOT NULL REFERENCES api_keys(id),
  scope       TEXT NOT NULL CHECK (scope IN ('monitor', 'tag', 'key')),
  monitor_id  TEXT REFERENCES monitors(id) ON DELETE CASCADE,
  tag         TEXT,
  token_hash  TEXT NOT NULL UNIQUE,
  created_at  TEXT NOT NULL,
  rotated_at  TEXT
);
CREATE INDEX feeds_by_key ON feeds (key_id, created_at DESC, id DESC);
CREATE INDEX feeds_by_monitor ON feeds (monitor_id);
