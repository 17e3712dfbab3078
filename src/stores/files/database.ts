// Stored files in PostgreSQL (storage.driver=database): one `blobs` row per key and its bytes in
// `blob_chunks` of CHUNK_BYTES (migrations/postgres/0002_blobs.sql). A put replaces a key in one
// transaction, so a reader sees the old bytes or the new and a crash leaves nothing half-written. Each
// store (results, captures) is a namespace of its own.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { checkFileKey, checkFolderName, missingFile, type FileStore, type StoredFile } from '../file-store.js';
import { blobStream } from './database-stream.js';

export const CHUNK_BYTES = 256 * 1024;
/** Keys per files() query: the orphan sweep walks any number of them a page at a time. */
const FILES_PAGE = 1000;

export class DatabaseFileStore implements FileStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly namespace: string,
  ) {}

  async put(key: string, bytes: Buffer): Promise<void> {
    checkFileKey(key);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // The upsert first: it locks the key's row, so a second put of the same key waits for this one to
      // commit and then replaces its chunks, rather than both writing chunks of one key.
      await client.query(
        `INSERT INTO blobs (namespace, key, size, modified_at, version) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (namespace, key) DO UPDATE
           SET size = EXCLUDED.size, modified_at = EXCLUDED.modified_at, version = EXCLUDED.version`,
        [this.namespace, key, bytes.length, new Date().toISOString(), randomUUID()],
      );
      await client.query('DELETE FROM blob_chunks WHERE namespace = $1 AND key = $2', [this.namespace, key]);
      for (let seq = 0; seq * CHUNK_BYTES < bytes.length; seq++) {
        const data = bytes.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES);
        await client.query('INSERT INTO blob_chunks (namespace, key, seq, data) VALUES ($1, $2, $3, $4)', [
          this.namespace,
          key,
          seq,
          data,
        ]);
      }
      await client.query('COMMIT');
    } catch (err) {
      // A connection that cannot even roll back is discarded rather than returned to the pool mid-transaction.
      const broken = await client.query('ROLLBACK').then(
        () => undefined,
        (rollbackErr: Error) => rollbackErr,
      );
      client.release(broken);
      throw err;
    }
    client.release();
  }

  async get(key: string): Promise<Buffer> {
    checkFileKey(key);
    // One statement, one snapshot: the size and every chunk of the same version.
    const { rows } = await this.pool.query<{ size: string | number; data: Buffer | null }>(
      `SELECT b.size, c.data FROM blobs b LEFT JOIN blob_chunks c ON c.namespace = b.namespace AND c.key = b.key
       WHERE b.namespace = $1 AND b.key = $2 ORDER BY c.seq`,
      [this.namespace, key],
    );
    if (!rows.length) throw missingFile(key);
    const bytes = Buffer.concat(rows.flatMap((row) => (row.data ? [row.data] : [])));
    if (bytes.length !== Number(rows[0]!.size)) throw new Error(`stored file ${key}: chunks do not add up`);
    return bytes;
  }

  async stream(key: string): Promise<{ size: number; body: Readable }> {
    checkFileKey(key);
    const { rows } = await this.pool.query<{ size: string | number; version: string }>(
      'SELECT size, version FROM blobs WHERE namespace = $1 AND key = $2',
      [this.namespace, key],
    );
    const row = rows[0];
    if (!row) throw missingFile(key);
    const size = Number(row.size); // bigint: a string unless the pool parses int8 (part of its setup)
    return { size, body: blobStream(this.pool, { ...row, namespace: this.namespace, key, size }, CHUNK_BYTES) };
  }

  async remove(key: string): Promise<void> {
    checkFileKey(key);
    await this.pool.query('DELETE FROM blobs WHERE namespace = $1 AND key = $2', [this.namespace, key]);
  }

  async removeFolder(prefix: string): Promise<void> {
    checkFolderName(prefix);
    // `prefix/` up to `prefix0` ('0' follows '/') in bytewise order: the folder's keys and nothing else.
    await this.pool.query('DELETE FROM blobs WHERE namespace = $1 AND key >= $2 AND key < $3', [
      this.namespace,
      `${prefix}/`,
      `${prefix}0`,
    ]);
  }

  async *files(): AsyncIterable<StoredFile> {
    let after = '';
    for (;;) {
      const { rows } = await this.pool.query<{ key: string; modified_at: string }>(
        'SELECT key, modified_at FROM blobs WHERE namespace = $1 AND key > $2 ORDER BY key LIMIT $3',
        [this.namespace, after, FILES_PAGE],
      );
      for (const row of rows) yield { key: row.key, modifiedAt: new Date(row.modified_at) };
      if (rows.length < FILES_PAGE) return;
      after = rows[rows.length - 1]!.key;
    }
  }
}
