// The one place errors become responses (the error codes /docs and docs/rendering.md list). A store's own
// fault (a full disk: 507; a database that cannot be reached: 503, src/stores/store-fault.ts) says when to
// try again; anything else that is not an AppError is a bug: the client gets a generic 500, the log the cause.
import type { Middleware } from 'koa';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { RenderAborted } from '../../render/renderer.js';
import { storeFaultOf } from '../../stores/store-fault.js';
import type { ErrorBody } from '../schemas/responses/error.js';

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
      const known = err instanceof AppError ? err : storeFaultOf(err, 'request');
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
