import { describe, expect, it } from 'vitest';
import { MemoryRateLimits } from '../../src/stores/sql/sqlite/memory-rate-limits.js';

describe('MemoryRateLimits (the token buckets of one node)', () => {
  it('bursts to the per-minute budget, refuses the next, and refills continuously', async () => {
    let now = 0;
    const buckets = new MemoryRateLimits();
    for (let i = 0; i < 60; i++) expect((await buckets.take('k', 60, now)).allowed).toBe(true);
    const refused = await buckets.take('k', 60, now);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    now += 1000; // one token per second at 60/min
    expect((await buckets.take('k', 60, now)).allowed).toBe(true);
    expect((await buckets.take('k', 60, now)).allowed).toBe(false);
  });

  it('a sweep of idle buckets, triggered at one rate, keeps a half-spent bucket of another rate', async () => {
    let now = 0;
    const buckets = new MemoryRateLimits();
    for (let i = 0; i < 300; i++) await buckets.take('key:busy', 600, now); // half of a 600/min budget spent
    now += 1000; // +10 tokens at 600/min: 310, far from full
    for (let i = 0; i < 10_001; i++) await buckets.take(`ip:${i}`, 20, now); // crosses the sweep threshold
    expect((await buckets.take('key:busy', 600, now)).remaining).toBeLessThan(320);
  });
});
