// A store's own error that is no bug, as the error to answer with: a write that found no room (a full disk,
// here or the database's) and a database that cannot be reached both pass with time, so each says when to
// try again. One mapping for the HTTP answer and for a job's recorded reason.
import { AppError, databaseUnavailable, insufficientStorage, jobDiskFull } from '../errors.js';
import { fullDiskOf } from './disk-full.js';
import { isDatabaseUnavailable } from './unavailable.js';

/**
 * `err` as a named error, or undefined when it is not a store fault (an AppError already is named).
 * `audience` 'job' words a full disk as a job's reason (retried by the worker, not by the caller).
 */
export function storeFaultOf(err: unknown, audience: 'request' | 'job'): AppError | undefined {
  if (err instanceof AppError) return undefined;
  const fullDisk = fullDiskOf(err);
  if (fullDisk) return audience === 'job' ? jobDiskFull(fullDisk, err) : insufficientStorage(fullDisk, { cause: err });
  if (isDatabaseUnavailable(err)) return databaseUnavailable(err);
  return undefined;
}
