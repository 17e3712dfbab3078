-- Facts about this installation. The rendering core keeps no per-request rows; later migrations add
-- API keys, jobs, monitors and webhook deliveries.
CREATE TABLE instance (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO instance (key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
