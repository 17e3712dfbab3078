import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors.js';
import { RenderLimiter } from '../../src/render/limiter.js';
import { until } from '../helpers/until.js';

/** A task the test finishes by hand. */
interface Gate<T = string> {
  started: boolean;
  finish(value: T): void;
  fail(err: unknown): void;
  fn: () => Promise<T>;
}

function gate<T = string>(onStart?: () => void): Gate<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const done = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const g: Gate<T> = {
    started: false,
    finish: (v) => resolve(v),
    fail: (e) => reject(e),
    fn: () => {
      g.started = true;
      onStart?.();
      return done;
    },
  };
  return g;
}

/** Let queued promise callbacks run. */
const tick = () => new Promise<void>((r) => setImmediate(r));
const never = () => new AbortController().signal;

async function queueFullError(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('RenderLimiter', () => {
  it('runs at once while slots are free and returns the task result', async () => {
    const limiter = new RenderLimiter(2, 10);
    await expect(limiter.run(never(), async () => 42)).resolves.toBe(42);
    expect(limiter.activeCount).toBe(0);
    expect(limiter.queuedCount).toBe(0);
  });

  it('never runs more than `concurrency` tasks at once', async () => {
    const limiter = new RenderLimiter(3, 100);
    let running = 0;
    let peak = 0;
    const task = (ms: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      expect(limiter.activeCount).toBeLessThanOrEqual(3);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return ms;
    };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => limiter.run(never(), task(1 + (i % 5) * 3))),
    );
    expect(results).toHaveLength(20);
    expect(peak).toBe(3);
    expect(limiter.activeCount).toBe(0);
    expect(limiter.queuedCount).toBe(0);
  });

  it('holds extra tasks in the queue until a slot frees', async () => {
    const limiter = new RenderLimiter(1, 5);
    const a = gate();
    const b = gate();
    const pa = limiter.run(never(), a.fn);
    const pb = limiter.run(never(), b.fn);
    await tick();
    expect(a.started).toBe(true);
    expect(b.started).toBe(false);
    expect(limiter.activeCount).toBe(1);
    expect(limiter.queuedCount).toBe(1);
    a.finish('a');
    await expect(pa).resolves.toBe('a');
    await tick();
    expect(b.started).toBe(true);
    expect(limiter.activeCount).toBe(1);
    expect(limiter.queuedCount).toBe(0);
    b.finish('b');
    await expect(pb).resolves.toBe('b');
    expect(limiter.activeCount).toBe(0);
  });

  it('starts queued tasks first-in, first-out', async () => {
    const limiter = new RenderLimiter(1, 10);
    const order: number[] = [];
    const first = gate();
    const p0 = limiter.run(never(), first.fn);
    const rest = [1, 2, 3, 4, 5].map((i) =>
      limiter.run(never(), async () => {
        order.push(i);
        await tick();
        return i;
      }),
    );
    await tick();
    expect(order).toEqual([]);
    first.finish('x');
    await p0;
    await Promise.all(rest);
    expect(order).toEqual([1, 2, 3, 4, 5]);
  });

  it('a failing task frees its slot and its error reaches the caller', async () => {
    const limiter = new RenderLimiter(1, 5);
    const boom = new Error('boom');
    const a = gate();
    const pa = limiter.run(never(), a.fn);
    const pb = limiter.run(never(), async () => 'b');
    a.fail(boom);
    await expect(pa).rejects.toBe(boom);
    await expect(pb).resolves.toBe('b');
    // A synchronous throw inside fn behaves the same.
    await expect(
      limiter.run(never(), () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(limiter.activeCount).toBe(0);
    await expect(limiter.run(never(), async () => 'c')).resolves.toBe('c');
  });

  it('refuses beyond the queue with AppError 429 queue_full and Retry-After ≥ 1, without running the task', async () => {
    const limiter = new RenderLimiter(1, 2);
    const a = gate();
    const pa = limiter.run(never(), a.fn);
    const pb = limiter.run(never(), async () => 'b');
    const pc = limiter.run(never(), async () => 'c');
    await tick();
    let ran = false;
    const err = await queueFullError(
      limiter.run(never(), async () => {
        ran = true;
        return 'd';
      }),
    );
    expect(err.status).toBe(429);
    expect(err.code).toBe('queue_full');
    expect(err.extra.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(err.extra.retryAfterSeconds)).toBe(true);
    expect(limiter.queuedCount).toBe(2);
    a.finish('a');
    await expect(Promise.all([pa, pb, pc])).resolves.toEqual(['a', 'b', 'c']);
    expect(ran).toBe(false);
  });

  it('queueSize 0 refuses as soon as all slots are busy', async () => {
    const limiter = new RenderLimiter(1, 0);
    const a = gate();
    const pa = limiter.run(never(), a.fn);
    const err = await queueFullError(limiter.run(never(), async () => 'b'));
    expect(err.code).toBe('queue_full');
    a.finish('a');
    await pa;
    await expect(limiter.run(never(), async () => 'c')).resolves.toBe('c');
  });

  it('Retry-After is 1 s on a fresh limiter and grows with the backlog and the observed render time', async () => {
    const fresh = new RenderLimiter(1, 0);
    const a = gate();
    const pa = fresh.run(never(), a.fn);
    expect((await queueFullError(fresh.run(never(), async () => undefined))).extra.retryAfterSeconds).toBe(1);
    a.finish('a');
    await pa;

    // Teach a limiter that renders take ~4 s (its moving average) with a fake clock.
    const slow = new RenderLimiter(2, 4);
    let clock = 0;
    const spy = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    try {
      for (let i = 0; i < 30; i++)
        await slow.run(never(), async () => {
          clock += 4000;
        });
    } finally {
      spy.mockRestore();
    }
    const gates = Array.from({ length: 6 }, () => gate());
    const running = gates.map((g) => slow.run(never(), g.fn));
    await tick();
    expect(slow.activeCount).toBe(2);
    expect(slow.queuedCount).toBe(4);
    const err = await queueFullError(slow.run(never(), async () => undefined));
    // (4 waiting + 2 active) / 2 slots × ~4 s ≈ 12 s.
    expect(err.extra.retryAfterSeconds).toBe(12);
    gates.forEach((g) => g.finish('x'));
    await Promise.all(running);
  });

  it('Retry-After rounds up, and is at least 1 s even when renders are fast', async () => {
    let clock = 0;
    const spy = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const fast = new RenderLimiter(1, 0);
    const odd = new RenderLimiter(3, 1);
    try {
      for (let i = 0; i < 30; i++)
        await fast.run(never(), async () => {
          clock += 10;
        });
      for (let i = 0; i < 30; i++)
        await odd.run(never(), async () => {
          clock += 4000;
        });
    } finally {
      spy.mockRestore();
    }
    const a = gate();
    const pa = fast.run(never(), a.fn);
    // 1 active × ~0.01 s = 0.01 s → still 1.
    expect((await queueFullError(fast.run(never(), async () => undefined))).extra.retryAfterSeconds).toBe(1);
    a.finish('a');
    await pa;

    const gates = Array.from({ length: 4 }, () => gate());
    const running = gates.map((g) => odd.run(never(), g.fn));
    await tick();
    // (1 waiting + 3 active) / 3 slots × ~4 s ≈ 5.33 s → 6, never less than the estimate.
    expect((await queueFullError(odd.run(never(), async () => undefined))).extra.retryAfterSeconds).toBe(6);
    gates.forEach((g) => g.finish('x'));
    await Promise.all(running);
  });

  it('an abort while queued rejects with the signal reason, does not run the task, and frees the place', async () => {
    const limiter = new RenderLimiter(1, 1);
    const a = gate();
    const pa = limiter.run(never(), a.fn);
    const controller = new AbortController();
    let bRan = false;
    const pb = limiter.run(controller.signal, async () => {
      bRan = true;
      return 'b';
    });
    await tick();
    expect(limiter.queuedCount).toBe(1);
    await queueFullError(limiter.run(never(), async () => 'refused'));

    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(pb).rejects.toBe(reason);
    expect(limiter.queuedCount).toBe(0);
    expect(limiter.activeCount).toBe(1);

    // The place is free again: a newcomer may queue, and runs after `a`.
    const pc = limiter.run(never(), async () => 'c');
    await tick();
    expect(limiter.queuedCount).toBe(1);
    a.finish('a');
    await expect(pa).resolves.toBe('a');
    await expect(pc).resolves.toBe('c');
    expect(bRan).toBe(false);
    expect(limiter.activeCount).toBe(0);
  });

  it('aborting one waiter in the middle keeps the others in order', async () => {
    const limiter = new RenderLimiter(1, 10);
    const a = gate();
    const pa = limiter.run(never(), a.fn);
    const order: string[] = [];
    const c2 = new AbortController();
    const p1 = limiter.run(never(), async () => {
      order.push('1');
    });
    const p2 = limiter.run(c2.signal, async () => {
      order.push('2');
    });
    const p3 = limiter.run(never(), async () => {
      order.push('3');
    });
    c2.abort();
    await expect(p2).rejects.toBeDefined();
    a.finish('a');
    await Promise.all([pa, p1, p3]);
    expect(order).toEqual(['1', '3']);
  });

  it('an already-aborted signal is refused without taking a slot', async () => {
    const limiter = new RenderLimiter(1, 1);
    const controller = new AbortController();
    const reason = new Error('gone');
    controller.abort(reason);
    let ran = false;
    await expect(
      limiter.run(controller.signal, async () => {
        ran = true;
      }),
    ).rejects.toBe(reason);
    expect(ran).toBe(false);
    expect(limiter.activeCount).toBe(0);
    await expect(limiter.run(never(), async () => 'ok')).resolves.toBe('ok');
  });

  it('an abort after the task started does not affect it (the task owns cancellation)', async () => {
    const limiter = new RenderLimiter(1, 1);
    const controller = new AbortController();
    const a = gate();
    const pa = limiter.run(controller.signal, a.fn);
    await tick();
    controller.abort();
    a.finish('done');
    await expect(pa).resolves.toBe('done');
    expect(limiter.activeCount).toBe(0);
  });

  it('idle() resolves at once when nothing runs', async () => {
    const limiter = new RenderLimiter(2, 2);
    let resolved = false;
    void limiter.idle().then(() => {
      resolved = true;
    });
    await tick();
    expect(resolved).toBe(true);
  });

  it('idle() resolves only when every running and queued task is done', async () => {
    const limiter = new RenderLimiter(1, 5);
    const a = gate();
    const b = gate();
    const pa = limiter.run(never(), a.fn);
    const pb = limiter.run(never(), b.fn);
    let idle = false;
    const idlePromise = limiter.idle().then(() => {
      idle = true;
    });
    a.finish('a');
    await pa;
    await tick();
    expect(idle).toBe(false); // b now runs
    b.finish('b');
    await pb;
    await idlePromise;
    expect(idle).toBe(true);
  });

  it('idle() resolves when the last queued task is aborted and the running one ends', async () => {
    const limiter = new RenderLimiter(1, 5);
    const a = gate();
    const pa = limiter.run(never(), a.fn);
    const controller = new AbortController();
    const pb = limiter.run(controller.signal, async () => 'b').catch(() => 'aborted');
    let idle = false;
    const idlePromise = limiter.idle().then(() => {
      idle = true;
    });
    controller.abort();
    expect(await pb).toBe('aborted');
    await tick();
    expect(idle).toBe(false); // a still runs
    a.finish('a');
    await pa;
    await idlePromise;
    expect(idle).toBe(true);
  });

  it('tells how long each render waited for its slot: about 0 when one was free, the time in line otherwise', async () => {
    const waits: number[] = [];
    const limiter = new RenderLimiter(1, 5, (ms) => waits.push(ms));
    const first = gate();
    const running = limiter.run(never(), first.fn);
    await tick();
    const second = limiter.run(never(), async () => 'second');
    // Read after the call, so the limiter's own start of the wait is no later than this one.
    const queuedAt = performance.now();
    // The second waits in line for at least 30 ms, the clock's reading: no fixed sleep.
    await until('30 ms in line', () => performance.now() - queuedAt >= 30, 1000, 1);
    first.finish('first');
    await Promise.all([running, second]);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThan(5);
    expect(waits[1]).toBeGreaterThanOrEqual(30);
  });
});
