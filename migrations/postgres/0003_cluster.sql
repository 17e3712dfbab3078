-- A cluster of nodes over one database (issue 13).

-- The node registry: every running service process writes its row at start, refreshes heartbeat_at
-- every few seconds and removes the row on a clean stop. Times are ISO-8601 UTC text, as everywhere.
CREATE TABLE nodes (
  id text PRIMARY KEY,
  role text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  version text NOT NULL,
  started_at text NOT NULL,
  heartbeat_at text NOT NULL
);

-- The rate limits' token buckets, shared by every node so a budget holds across the cluster. UNLOGGED:
-- written on every request, and worth nothing after a crash (a bucket lost is a full bucket).
CREATE UNLOGGED TABLE rate_buckets (
  bucket text PRIMARY KEY,
  tokens double precision NOT NULL,
  updated_at_ms bigint NOT NULL
);
CREATE INDEX rate_buckets_updated ON rate_buckets (updated_at_ms);
