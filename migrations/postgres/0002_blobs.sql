-- Stored files in the database (storage.driver=database): results, captures and diff images, so several
-- nodes need no shared volume. One row per file and its bytes in 256 KiB chunks, so a download reads a
-- chunk at a time. `namespace` keeps the file stores apart (results, captures): each store lists and
-- sweeps its own keys only. Keys sort bytewise (COLLATE "C"): paging by key and the `folder/` range of
-- removeFolder then follow the primary key's order, whatever the database's locale.
CREATE TABLE blobs (
  namespace text NOT NULL,
  key text COLLATE "C" NOT NULL,
  size bigint NOT NULL,
  modified_at text NOT NULL,
  -- Changes with every put: a download that reads chunk by chunk stops rather than mix two versions.
  version text NOT NULL,
  PRIMARY KEY (namespace, key)
);

CREATE TABLE blob_chunks (
  namespace text NOT NULL,
  key text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (namespace, key, seq),
  FOREIGN KEY (namespace, key) REFERENCES blobs (namespace, key) ON DELETE CASCADE
);

-- PNG and PDF bytes are compressed already: keep chunks out of line without trying to compress them again.
ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
