// The rate limits' token buckets: a key (or an anonymous client address) may burst up to its per-minute
// budget, which refills continuously (perMinute tokens per 60 s, never above perMinute). With one node
// the buckets live in its memory; with several on PostgreSQL they are rows every node takes from, so a
// budget holds across the cluster.

/** What the RateLimit-* headers need, and whether the request may go on. */
export interface RateLimitAnswer {
  allowed: boolean;
  remaining: number;
  resetSeconds: number;
  retryAfterSeconds: number;
}

export interface RateLimitStore {
  /** Take one token from `bucketId` at `nowMs` (epoch ms), if it has one. */
  take(bucketId: string, perMinute: number, nowMs: number): Promise<RateLimitAnswer>;
}

/** A bucket left idle this long has refilled completely (0 → perMinute takes 60 s): it can be forgotten. */
export const BUCKET_FULL_AFTER_MS = 60_000;

/** The answer for a bucket holding `tokens` after the take (or the refusal). */
export function rateLimitAnswer(allowed: boolean, tokens: number, perMinute: number): RateLimitAnswer {
  const rate = perMinute / 60_000; // tokens per ms
  return {
    allowed,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((perMinute - tokens) / rate / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / rate / 1000)),
  };
}
