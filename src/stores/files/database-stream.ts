// A stored file read out of PostgreSQL one chunk per query, as fast as the consumer takes it: Readable
// calls read() again only when its buffer has drained, so a download of any size holds about one chunk.
import { Readable } from 'node:stream';
import type pg from 'pg';

export interface BlobRef {
  namespace: string;
  key: string;
  size: number;
  /** The version read; a chunk of any other version (a put or remove meanwhile) ends the stream. */
  version: string;
}

// The chunk only if the file is still the version whose size was sent: never the tail of another.
const CHUNK = `SELECT c.data FROM blob_chunks c JOIN blobs b ON b.namespace = c.namespace AND b.key = c.key
  WHERE c.namespace = $1 AND c.key = $2 AND c.seq = $3 AND b.version = $4`;

export function blobStream(pool: pg.Pool, blob: BlobRef, chunkBytes: number): Readable {
  const chunks = Math.ceil(blob.size / chunkBytes);
  let seq = 0;
  let sent = 0;
  const stream = new Readable({
    read() {
      if (seq === chunks) {
        if (sent !== blob.size) stream.destroy(new Error(`stored file ${blob.key}: ${sent} of ${blob.size} bytes`));
        else stream.push(null);
        return;
      }
      const values = [blob.namespace, blob.key, seq++, blob.version];
      pool.query<{ data: Buffer }>(CHUNK, values).then(
        ({ rows }) => {
          if (stream.destroyed) return;
          const data = rows[0]?.data;
          if (!data) {
            stream.destroy(new Error(`stored file ${blob.key} was replaced or removed while it was read`));
            return;
          }
          sent += data.length;
          stream.push(data);
        },
        (err: Error) => stream.destroy(err),
      );
    },
  });
  return stream;
}
