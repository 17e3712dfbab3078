-- Atom feeds of a key's changes (issue 28): one row per feed URL. The token itself is never stored, only
-- its SHA-256 (hex), so a copy of the database cannot read anyone's feed. A monitor's feeds go with it.
-- Text is COLLATE "C" like every column (0001): ids and times sort as SQLite sorts them.
CREATE TABLE feeds (
  id          text COLLATE "C" PRIMARY KEY,
  key_id      text COLLATE "C" NOT NULL REFERENCES api_keys(id),
  scope       text COLLATE "C" NOT NULL CHECK (scope IN ('monitor', 'tag', 'key')),
  monitor_id  text COLLATE "C" REFERENCES monitors(id) ON DELETE CASCADE,
  tag         text COLLATE "C",
  token_hash  text COLLATE "C" NOT NULL UNIQUE,
  created_at  text COLLATE "C" NOT NULL,
  rotated_at  text COLLATE "C"
);
CREATE INDEX feeds_by_key ON feeds (key_id, created_at DESC, id DESC);
CREATE INDEX feeds_by_monitor ON feeds (monitor_id);
