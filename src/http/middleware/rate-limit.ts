// Token buckets: a key (or an anonymous IP) may burst up to its per-minute budget, which refills
// continuously. Kept in process memory: with several instances each enforces its own share.
import type { Middleware } from 'koa';
import { rateLimited } from '../../errors.js';
import { clientAddressKey } from '../client-address.js';
import type { Principal } from './auth.js';

interface Bucket {
  tokens: number;
  updated: number;
  perMinute: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Take one token. Returns what the RateLimit-* headers need, and whether the request may go on. */
  take(
    id: string,
    perMinute: number,
  ): { allowed: boolean; remaining: number; resetSeconds: number; retryAfterSeconds: number } {
    const rate = perMinute / 60_000; // tokens per ms
    const now = this.now();
    const bucket = this.buckets.get(id) ?? { tokens: perMinute, updated: now, perMinute };
    bucket.perMinute = perMinute;
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updated) * rate);
    bucket.updated = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(id, bucket);
    if (this.buckets.size > 10_000) this.forgetFull(now);
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((perMinute - bucket.tokens) / rate / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000)),
    };
  }

  /** Buckets that have refilled completely carry no information: drop them to bound memory. */
  private forgetFull(now: number): void {
    for (const [id, b] of this.buckets) {
      if (b.tokens + (now - b.updated) * (b.perMinute / 60_000) >= b.perMinute) this.buckets.delete(id);
    }
  }
}

export function rateLimit(
  limits: { perKeyPerMinute: number; anonymousPerMinute: number },
  buckets = new TokenBuckets(),
): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal as Principal | undefined;
    if (principal) {
      const [id, perMinute] =
        principal.kind === 'key'
          ? [`key:${principal.keyId}`, limits.perKeyPerMinute]
          : [`ip:${clientAddressKey(principal.ip)}`, limits.anonymousPerMinute]; // an IPv6 /64 is one client
      const result = buckets.take(id, perMinute);
      ctx.set('RateLimit-Limit', String(perMinute));
      ctx.set('RateLimit-Remaining', String(result.remaining));
      ctx.set('RateLimit-Reset', String(result.resetSeconds));
      if (!result.allowed) throw rateLimited(result.retryAfterSeconds);
    }
    await next();
  };
}
