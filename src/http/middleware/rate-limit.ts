// Rate limits: each request takes a token from its key's (or anonymous client's) bucket in the
// RateLimitStore (src/stores/rate-limits.ts): one node's memory, or buckets shared by every node.
import type { Middleware } from 'koa';
import { rateLimited, rateLimitMessage } from '../../errors.js';
import { clientAddressKey } from '../client-address.js';
import type { RateLimitStore } from '../../stores/rate-limits.js';
import type { Principal } from './auth.js';

export function rateLimit(
  limits: { perKeyPerMinute: number; anonymousPerMinute: number },
  buckets: RateLimitStore,
): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal as Principal | undefined;
    if (principal) {
      const [id, perMinute] =
        principal.kind === 'key'
          ? [`key:${principal.keyId}`, limits.perKeyPerMinute]
          : [`ip:${clientAddressKey(principal.ip)}`, limits.anonymousPerMinute]; // an IPv6 /64 is one client
      const result = await buckets.take(id, perMinute, Date.now());
      ctx.set('RateLimit-Limit', String(perMinute));
      ctx.set('RateLimit-Remaining', String(result.remaining));
      ctx.set('RateLimit-Reset', String(result.resetSeconds));
      if (!result.allowed)
        throw rateLimited(
          result.retryAfterSeconds,
          rateLimitMessage(result.retryAfterSeconds, perMinute, principal.kind !== 'key'),
        );
    }
    await next();
  };
}
