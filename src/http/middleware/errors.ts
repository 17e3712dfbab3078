// The one place errors become responses (the error codes /docs and docs/rendering.md list). A database
// that cannot be reached (src/stores/unavailable.ts) is 503 unavailable with Retry-After; anything else
// that is not an AppError is a bug: the client gets a generic 500, the log gets the cause with the request id.
import type { Middleware } from 'koa';
import { AppError, databaseUnavailable, insufficientStorage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { RenderAborted } from '../../render/renderer.js';
import { fullDiskOf } from '../../stores/disk-full.js';
import type { ErrorBody } from '../schemas/responses/error.js';
import { isDatabaseUnavailable } from '../../stores/unavailable.js';

/**
 * What a store's own error means for the caller, when it is no bug: a write that found no room (a full
 * disk, here or the database's) is 507, a database that cannot be reached is 503; both say when to try again.
 */
function storeFault(err: unknown): AppError | undefined {
  const fullDisk = fullDiskOf(err);
  if (fullDisk) return insufficientStorage(fullDisk, { cause: err });
  if (isDatabaseUnavailable(err)) return databaseUnavailable(err);
  return undefined;
}

export function errorResponses(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const requestId = ctx.state.requestId as string;
      if (err instanceof RenderAborted) {
        ctx.status = 499; // nginx's "client closed request": only for the log, nobody reads it
        return;
      }
      const known = err instanceof AppError ? err : storeFault(err);
      const appError =
        known ?? new AppError('internal', 'Internal error; the request id identifies it in the service log');
      if (!known) log.error({ err, requestId }, 'unhandled error');
      else if (appError.status >= 500)
        log.warn({ requestId, code: appError.code, err: appError.cause }, appError.message);
      else if (appError.cause) log.debug({ requestId, code: appError.code, err: appError.cause }, appError.message);
      if (appError.extra.logDetail !== undefined)
        log.info({ requestId, code: appError.code, reason: appError.extra.logDetail }, appError.message);

      ctx.status = appError.status;
      if (appError.extra.retryAfterSeconds !== undefined)
        ctx.set('Retry-After', String(appError.extra.retryAfterSeconds));
      ctx.remove('Content-Disposition');
      ctx.body = {
        error: {
          code: appError.code,
          message: appError.message,
          ...(appError.extra.details && { details: appError.extra.details }),
        },
        requestId,
      } satisfies ErrorBody;
    }
  };
}
