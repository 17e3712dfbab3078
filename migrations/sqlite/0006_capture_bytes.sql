-- Bytes a capture keeps on disk (its image plus its diff image), so a key's total can be held under
-- monitors.maxStoredBytesPerKey. Captures recorded before this migration count as 0: their files are
-- not read back at start; they leave with retention like any other capture.
ALTER TABLE captures ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
