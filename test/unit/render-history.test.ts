// The in-memory last hour of renders: minute buckets that age out on a fake clock, and percentiles from
// fixed-edge histograms that stay within their stated 10 % of the exact value.
import { describe, expect, it } from 'vitest';
import { EDGES, Histogram } from '../../src/operations/histogram.js';
import { MINUTE_MS, RenderHistory, WINDOW_MINUTES } from '../../src/operations/render-history.js';

function fakeClock(iso: string) {
  let now = Date.parse(iso);
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** The exact nearest-rank quantile of `values`. */
function exact(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

describe('Histogram', () => {
  it('has edges from 0 to 10 minutes, each at most 10 % above the one before', () => {
    expect(EDGES[0]).toBe(0);
    expect(EDGES[EDGES.length - 1]).toBe(600_000);
    for (let i = 2; i < EDGES.length; i++) expect(EDGES[i]! / EDGES[i - 1]!).toBeLessThanOrEqual(1.1 + 1e-9);
  });

  it('reads p50 and p95 within 10 % of the exact values, for spread-out and for skewed data', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const sets = {
      uniform: Array.from({ length: 1000 }, () => 50 + random() * 950),
      skewed: Array.from({ length: 1000 }, () => (random() < 0.9 ? 80 + random() * 40 : 2000 + random() * 8000)),
    };
    for (const [name, values] of Object.entries(sets)) {
      const h = new Histogram();
      for (const v of values) h.add(v);
      const p = h.percentiles()!;
      expect(p.count, name).toBe(1000);
      for (const [q, got] of [
        [0.5, p.p50],
        [0.95, p.p95],
      ] as const) {
        const want = exact(values, q);
        expect(Math.abs(got - want) / want, `${name} q${q}: ${got} vs ${want}`).toBeLessThanOrEqual(0.1);
      }
      expect(p.max).toBe(Math.round(Math.max(...values)));
    }
  });

  it('keeps percentiles within the values seen: one value reads as itself; zeros read as 0', () => {
    const one = new Histogram();
    one.add(123);
    expect(one.percentiles()).toEqual({ count: 1, p50: 123, p95: 123, max: 123 });
    const zeros = new Histogram();
    for (let i = 0; i < 10; i++) zeros.add(0);
    expect(zeros.percentiles()).toEqual({ count: 10, p50: 0, p95: 0, max: 0 });
    expect(new Histogram().percentiles()).toBeNull();
    const huge = new Histogram();
    huge.add(2_000_000); // above the last edge: the open bucket
    expect(huge.percentiles()!.p95).toBe(2_000_000);
  });

  it('merges: the merged percentiles are those of all the values together', () => {
    const a = new Histogram();
    const b = new Histogram();
    const both = new Histogram();
    for (let i = 1; i <= 100; i++) {
      (i % 2 ? a : b).add(i * 10);
      both.add(i * 10);
    }
    a.merge(b);
    expect(a.percentiles()).toEqual(both.percentiles());
  });
});

describe('RenderHistory', () => {
  it('counts outcomes in the current minute and reports the last 60 minutes, oldest first', () => {
    const clock = fakeClock('2026-11-24T14:30:20.000Z');
    const h = new RenderHistory(clock);
    h.outcome('ok');
    h.outcome('ok');
    h.outcome('rateLimited');
    h.renderTime(100);
    h.renderTime(300);
    h.queueWait(0);
    clock.advance(MINUTE_MS); // 14:31:20
    h.outcome('timedOut');
    h.outcome('queueFull');
    h.queueWait(40);

    const f = h.figures();
    expect(f.minutes).toHaveLength(WINDOW_MINUTES);
    expect(f.to).toBe('2026-11-24T14:31:20.000Z');
    expect(f.from).toBe('2026-11-24T13:32:00.000Z');
    expect(f.minutes.at(-1)!.start).toBe('2026-11-24T14:31:00.000Z');
    expect(f.minutes.at(-2)!.renders).toMatchObject({ ok: 2, rateLimited: 1, timedOut: 0 });
    expect(f.minutes.at(-1)!.renders).toMatchObject({ ok: 0, timedOut: 1, queueFull: 1 });
    expect(f.minutes.at(-3)!.renders.ok).toBe(0);
    expect(f.minutes.at(-3)!.renderMs).toBeNull();
    expect(f.renders).toEqual({
      ok: 2,
      failed: 0,
      blocked: 0,
      timedOut: 1,
      rateLimited: 1,
      queueFull: 1,
      canceled: 0,
      total: 5,
    });
    // p50 is 100 ms placed in its bucket (100 to 110 ms): within the stated 10 %.
    expect(f.renderMs).toMatchObject({ count: 2, p95: 300, max: 300 });
    expect(f.renderMs!.p50).toBeGreaterThanOrEqual(100);
    expect(f.renderMs!.p50).toBeLessThanOrEqual(110);
    expect(f.queueWaitMs).toMatchObject({ count: 2, p50: 0, max: 40 });
  });

  it('forgets a minute once it is more than an hour old, also when its ring slot is reused', () => {
    const clock = fakeClock('2026-11-24T10:00:00.000Z');
    const h = new RenderHistory(clock);
    h.outcome('failed');
    h.renderTime(50);
    clock.advance(59 * MINUTE_MS); // 10:59: the 10:00 minute is the oldest of the window
    expect(h.figures().renders.failed).toBe(1);
    expect(h.figures().minutes[0]!.renders.failed).toBe(1);
    clock.advance(MINUTE_MS); // 11:00: out of the window (nothing written into its slot yet)
    expect(h.figures().renders.failed).toBe(0);
    expect(h.figures().renderMs).toBeNull();
    h.outcome('ok'); // reuses the slot of 10:00
    expect(h.figures().renders).toMatchObject({ ok: 1, failed: 0, total: 1 });
    clock.advance(5 * 60 * MINUTE_MS); // hours of quiet
    expect(h.figures().renders.total).toBe(0);
  });
});
