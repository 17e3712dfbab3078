import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../log.js';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/**
 * Outermost: gives every request an id (echoing a sane client-sent X-Request-Id) and logs one line
 * when it ends. Only the path is logged — query strings and headers may carry secrets.
 */
export function requestLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const sent = ctx.get('X-Request-Id');
    const requestId = SAFE_ID.test(sent) ? sent : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const blockedRequests = ctx.state.blockedRequests as number | undefined;
      const line = {
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Math.round(performance.now() - started),
        ...(blockedRequests && { blockedRequests }),
      };
      if (ctx.status >= 500) log.warn(line, 'request');
      else log.info(line, 'request');
    }
  };
}
