-- monitors.maxStoredBytesPerKey sums a key's capture bytes after every capture, inside the capture's
-- write transaction. Covering (monitor_id, stored_bytes) lets that sum read the index alone: with
-- 100,000 captures under one key it took 20 ms from the table rows and 3.3 ms from this index.
CREATE INDEX captures_stored_bytes ON captures (monitor_id, stored_bytes);
