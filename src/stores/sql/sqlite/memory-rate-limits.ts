// The token buckets of one node, in its memory (see src/stores/rate-limits.ts): the rate limits with
// SQLite, where one database file means one node.
import { rateLimitAnswer, type RateLimitAnswer, type RateLimitStore } from '../../rate-limits.js';

interface Bucket {
  tokens: number;
  updated: number;
  perMinute: number;
}

export class MemoryRateLimits implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>();

  take(id: string, perMinute: number, now: number): Promise<RateLimitAnswer> {
    const rate = perMinute / 60_000; // tokens per ms
    const bucket = this.buckets.get(id) ?? { tokens: perMinute, updated: now, perMinute };
    bucket.perMinute = perMinute;
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updated) * rate);
    bucket.updated = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(id, bucket);
    if (this.buckets.size > 10_000) this.forgetFull(now);
    return Promise.resolve(rateLimitAnswer(allowed, bucket.tokens, perMinute));
  }

  /** Buckets that have refilled completely carry no information: drop them to bound memory. */
  private forgetFull(now: number): void {
    for (const [id, b] of this.buckets) {
      if (b.tokens + (now - b.updated) * (b.perMinute / 60_000) >= b.perMinute) this.buckets.delete(id);
    }
  }
}
