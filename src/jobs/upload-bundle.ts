// An async job's upload, kept in the results file store under a key of the job until the job ends: one
// file holding every uploaded file, so the job's row carries only a marker (count and digest) and never
// the bytes. Layout: a 4-byte big-endian length, a JSON manifest of that length (path, contentType,
// size of each file, in order), then the files' bytes one after the other.
import { createHash } from 'node:crypto';
import type { UploadedFile } from '../domain/render-spec.js';

/** What the job's stored request says of its upload: enough to find it, and to tell two uploads apart. */
export interface UploadMarker {
  files: number;
  /** SHA-256 of the bundle: a repeated Idempotency-Key with other files is another request. */
  sha256: string;
}

/** The file store key of a job's upload; beside its results (`<job>-<attempt>`), never one of them. */
export const uploadKey = (jobId: string): string => `${jobId}-upload`;
const SUFFIX = '-upload';
/** The job whose upload `key` is, or undefined if `key` is no upload's. */
export const jobIdOfUploadKey = (key: string): string | undefined =>
  key.endsWith(SUFFIX) ? key.slice(0, -SUFFIX.length) : undefined;

export function encodeUpload(files: readonly UploadedFile[]): { bundle: Buffer; marker: UploadMarker } {
  const manifest = Buffer.from(
    JSON.stringify(files.map((f) => ({ path: f.path, contentType: f.contentType, size: f.bytes.length }))),
  );
  const head = Buffer.alloc(4);
  head.writeUInt32BE(manifest.length);
  const bundle = Buffer.concat([head, manifest, ...files.map((f) => f.bytes)]);
  return { bundle, marker: { files: files.length, sha256: createHash('sha256').update(bundle).digest('hex') } };
}

export function decodeUpload(bundle: Buffer): UploadedFile[] {
  const length = bundle.readUInt32BE(0);
  const manifest = JSON.parse(bundle.subarray(4, 4 + length).toString('utf-8')) as {
    path: string;
    contentType: string;
    size: number;
  }[];
  let at = 4 + length;
  return manifest.map(({ path, contentType, size }) => {
    const bytes = bundle.subarray(at, at + size);
    at += size;
    return { path, contentType, bytes };
  });
}
