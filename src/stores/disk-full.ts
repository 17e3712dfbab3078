// Which errors mean "no room left to write": the same fault seen through the file system (ENOSPC, EDQUOT),
// SQLite (SQLITE_FULL) and PostgreSQL (53100 disk_full, e.g. a tablespace whose disk filled). Callers
// turn them into one answer (507 insufficient_storage, a retryable job failure) wherever they surface.

/** Where the full disk is: the service's own (dataDir) or the PostgreSQL server's. */
export type FullDisk = 'local' | 'database';

const LOCAL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const DATABASE_CODES = new Set(['53100']);

/** The full disk `err` (or an error in its `cause` chain) reports, if it reports one. */
export function fullDiskOf(err: unknown): FullDisk | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as Error).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (LOCAL_CODES.has(code)) return 'local';
    if (DATABASE_CODES.has(code)) return 'database';
  }
  return undefined;
}
