// Stored files no row refers to: what a crash leaves between writing a file and committing its row, or
// between deleting rows and their files. They are never served, but nothing else would ever remove them.
import type { FileStore } from '../file-store.js';

/**
 * Only files older than this are judged: a file written moments ago may belong to a render whose row
 * is not committed yet (the longest render timeout is minutes; an hour leaves no doubt).
 */
export const ORPHAN_MIN_AGE_MS = 3600_000;
/**
 * A half-written copy (`partial`) is judged sooner: it is written by one call that takes seconds, so one
 * this old was left by a process that died mid-write (or a full disk) and only holds space.
 */
export const PARTIAL_MIN_AGE_MS = 600_000;

/**
 * Removes the files of `store` older than `before` (half-written ones: older than `partialsBefore`) that
 * `isReferenced` does not claim; returns how many.
 */
export async function removeOrphans(
  store: FileStore,
  isReferenced: (key: string) => boolean | Promise<boolean>,
  before: Date,
  shouldStop: () => boolean = () => false,
  partialsBefore: Date = before,
): Promise<number> {
  let removed = 0;
  for await (const file of store.files()) {
    if (shouldStop()) break;
    if (file.modifiedAt >= (file.partial ? partialsBefore : before) || (await isReferenced(file.key))) continue;
    await store.remove(file.key);
    removed++;
  }
  return removed;
}
