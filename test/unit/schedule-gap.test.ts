import cron from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { shortestGapSeconds } from '../../src/monitors/schedule-gap.js';

describe('shortestGapSeconds', () => {
  it.each([
    ['* * * * * *', 1],
    ['*/30 * * * * *', 30],
    ['0,59 * * * * *', 1], // 00:00:59 → 00:01:00
    ['0,1 * * * *', 60],
    ['* * * * *', 60],
    ['*/5 * * * *', 300],
    ['0,50 * * * *', 600], // :50 → next hour's :00
    ['15-17 * * * *', 60],
    ['0 * * * *', 3600],
    ['0 0,12 * * *', 43_200],
    ['0 9 * * *', 86_400],
    ['30 58 23 * * *', 86_400],
    ['59 59 23 * * *', 86_400],
    ['0,59 59 23 * * *', 59],
  ])('%s → %i s', (expression, gap) => {
    expect(shortestGapSeconds(expression)).toBe(gap);
  });

  it('across midnight only when two consecutive days both run', () => {
    expect(shortestGapSeconds('0 0,59 0,23 * * *')).toBe(60); // 23:59 → 00:00 the next day
    expect(shortestGapSeconds('0 0,59 0,23 * * 1')).toBe(3540); // Mondays only: 00:00 → 00:59 (and 23:00 → 23:59)
    expect(shortestGapSeconds('0 0,59 0,23 * * 1,2')).toBe(60); // Monday 23:59 → Tuesday 00:00
    expect(shortestGapSeconds('59 59 23,0 * * 1,3')).toBe(82_800); // Mondays and Wednesdays: never 23:59:59 → 00:59:59 the next day
    expect(shortestGapSeconds('0 0 0,23 L * *')).toBe(82_800); // the last day of each month only: 00:00 → 23:00
    expect(shortestGapSeconds('0 0 0,23 1,L * *')).toBe(3600); // 23:00 on the last day → 00:00 on the 1st
  });

  it('runs on weekdays and months only', () => {
    expect(shortestGapSeconds('0 0 * * 1-5')).toBe(86_400);
    expect(shortestGapSeconds('0 0 1 jan *')).toBe(Infinity);
  });
});

describe('shortestGapSeconds with a bound ("is it below this?")', () => {
  afterEach(() => vi.restoreAllMocks());

  it('skips the day-by-day scan when the runs either side of midnight are far enough apart, and still answers below-or-not right', () => {
    const createTask = vi.spyOn(cron, 'createTask');
    // L (last day of the month) makes the scan use node-cron's slow matcher: what a request must not be able to trigger.
    expect(shortestGapSeconds('0 0,23 L * *', 60)).toBeGreaterThanOrEqual(60);
    expect(shortestGapSeconds('59 0,23 * * 5L', 60)).toBeGreaterThanOrEqual(60);
    expect(createTask).not.toHaveBeenCalled();
    // Below the bound within a day: the exact gap, still without a scan.
    expect(shortestGapSeconds('*/30 * * * * *', 60)).toBe(30);
    expect(createTask).not.toHaveBeenCalled();
  });

  it('scans when the bound needs it: 23:59 → 00:00 on consecutive days is 60 s', () => {
    const createTask = vi.spyOn(cron, 'createTask');
    expect(shortestGapSeconds('0 0,59 0,23 * * 1,2', 3600)).toBe(60);
    expect(createTask).toHaveBeenCalledTimes(1);
  });
});
