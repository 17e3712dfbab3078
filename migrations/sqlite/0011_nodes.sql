-- The node registry (issue 13): every running service process writes its row at start, refreshes
-- heartbeat_at every few seconds and removes the row on a clean stop. /api/status lists them; with
-- SQLite there is one node per file, but the registry is the same on both databases.
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  role TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  version TEXT NOT NULL,
  started_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL
);
