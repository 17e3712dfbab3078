// The manifest of a snapshot (`pagewatch backup`): what it holds and how to check it. Every file of the
// snapshot is listed with its size and SHA-256, so `pagewatch restore` refuses a damaged one before it
// touches anything; the database's applied migrations say which Pagewatch can open it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { z } from 'zod';

export const MANIFEST_FILE = 'manifest.json';
/** The layout of a snapshot. A restore refuses a snapshot of a later format (made by a newer Pagewatch). */
export const SNAPSHOT_FORMAT_VERSION = 1;
/** The SQLite file's name inside a snapshot (the same as in dataDir). */
export const SNAPSHOT_DATABASE = 'pagewatch.db';

const fileEntry = z
  .object({
    path: z.string().min(1),
    bytes: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

const migrationEntry = z.object({ name: z.string().min(1), checksum: z.string().min(1) }).strict();

const manifestSchema = z
  .object({
    format: z.literal('pagewatch-snapshot'),
    formatVersion: z.number().int().positive(),
    pagewatchVersion: z.string(),
    createdAt: z.string(),
    database: z.discriminatedUnion('kind', [
      z
        .object({
          kind: z.literal('sqlite'),
          file: z.literal(SNAPSHOT_DATABASE),
          migrations: z.array(migrationEntry),
        })
        .strict(),
      z
        .object({
          kind: z.literal('postgres'),
          /** The database the operator dumps with pg_dump (no password); not part of the snapshot. */
          url: z.string(),
          note: z.string(),
        })
        .strict(),
    ]),
    /** storage.driver: with `database` the stored files are in PostgreSQL, in its dump. */
    storageDriver: z.enum(['fs', 'database']),
    /** `file`: secret.key is in the snapshot; `configured`: secrets.key is set, and the operator keeps it. */
    secretsKey: z.enum(['file', 'configured', 'none']),
    files: z.array(fileEntry),
  })
  .strict();

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = z.infer<typeof fileEntry>;

/** A snapshot that cannot be restored as it is: the message names what is wrong. */
export class SnapshotError extends Error {}

/** The manifest in `text`, checked; throws SnapshotError saying what is wrong with it. */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new SnapshotError(`${MANIFEST_FILE} is not JSON`);
  }
  const version = (raw as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof version === 'number' && version > SNAPSHOT_FORMAT_VERSION)
    throw new SnapshotError(
      `the snapshot is of format ${version}, made by a newer Pagewatch; this one reads format ` +
        `${SNAPSHOT_FORMAT_VERSION}: restore it with that version`,
    );
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SnapshotError(`${MANIFEST_FILE} is not a snapshot manifest: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Size and SHA-256 of a file, read as a stream (results can be large). */
export async function hashFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}
