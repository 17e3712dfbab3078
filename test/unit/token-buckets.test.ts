import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../src/http/middleware/rate-limit.js';

describe('TokenBuckets', () => {
  it('bursts to the per-minute budget, refuses the next, and refills continuously', () => {
    let now = 0;
    const buckets = new TokenBuckets(() => now);
    for (let i = 0; i < 60; i++) expect(buckets.take('k', 60).allowed).toBe(true);
    const refused = buckets.take('k', 60);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    now += 1000; // one token per second at 60/min
    expect(buckets.take('k', 60).allowed).toBe(true);
    expect(buckets.take('k', 60).allowed).toBe(false);
  });

  it('a sweep of idle buckets, triggered at one rate, keeps a half-spent bucket of another rate', () => {
    let now = 0;
    const buckets = new TokenBuckets(() => now);
    for (let i = 0; i < 300; i++) buckets.take('key:busy', 600); // half of a 600/min budget spent
    now += 1000; // +10 tokens at 600/min: 310, far from full
    for (let i = 0; i < 10_001; i++) buckets.take(`ip:${i}`, 20); // crosses the sweep threshold
    expect(buckets.take('key:busy', 600).remaining).toBeLessThan(320);
  });
});
