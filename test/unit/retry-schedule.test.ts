import { describe, expect, it } from 'vitest';
import { JITTER, retryDelayMs } from '../../src/webhooks/retry-schedule.js';

const schedule = [5_000, 300_000, 1_800_000];

describe('retryDelayMs', () => {
  it('follows the schedule, one delay per failure, then stops', () => {
    expect([1, 2, 3].map((n) => retryDelayMs(n, schedule, () => 0.5))).toEqual(schedule);
    expect(retryDelayMs(4, schedule, () => 0.5)).toBeUndefined();
    expect(retryDelayMs(1, [], () => 0.5)).toBeUndefined();
  });

  it('jitters each delay by at most ±20 %', () => {
    expect(JITTER).toBe(0.2);
    expect(retryDelayMs(2, schedule, () => 0)).toBe(240_000);
    expect(retryDelayMs(2, schedule, () => 0.999_999)).toBeCloseTo(360_000, -1);
    const seen = new Set(Array.from({ length: 50 }, () => retryDelayMs(1, schedule)));
    expect(seen.size).toBeGreaterThan(10); // really random, so a fleet of failures spreads out
    for (const d of seen) {
      expect(d).toBeGreaterThanOrEqual(4_000);
      expect(d).toBeLessThanOrEqual(6_000);
    }
  });
});
