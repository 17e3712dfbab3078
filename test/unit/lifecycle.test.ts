import { describe, expect, it } from 'vitest';
import { startAll, stopAll, together, type Lifecycle } from '../../src/lifecycle.js';

/** A part that writes what happens to it into `events`; `failStart`/`failStop` make that step throw. */
function part(name: string, events: string[], opts: { failStart?: boolean; failStop?: boolean } = {}) {
  const p: Lifecycle = {
    name,
    async start() {
      await Promise.resolve();
      if (opts.failStart) throw new Error(`${name} cannot start`);
      events.push(`start ${name}`);
    },
    stop(deadline) {
      events.push(`stop ${name} by ${deadline}`);
      return opts.failStop ? Promise.reject(new Error(`${name} cannot stop`)) : Promise.resolve();
    },
  };
  return p;
}

function log() {
  const errors: string[] = [];
  return { errors, error: (obj: object, msg: string) => errors.push(`${(obj as { part: string }).part}: ${msg}`) };
}

describe('startAll / stopAll', () => {
  it('starts in order and stops in reverse, every part by the same deadline', async () => {
    const events: string[] = [];
    const parts = [part('a', events), part('b', events), part('c', events)];
    await startAll(parts, log());
    await stopAll(parts, 1234, log());
    expect(events).toEqual(['start a', 'start b', 'start c', 'stop c by 1234', 'stop b by 1234', 'stop a by 1234']);
  });

  it('when a part fails to start, stops the ones already started (in reverse) and throws', async () => {
    const events: string[] = [];
    const l = log();
    const parts = [part('a', events), part('b', events), part('c', events, { failStart: true }), part('d', events)];
    await expect(startAll(parts, l)).rejects.toThrow('c cannot start');
    expect(events.map((e) => e.replace(/ by \d+$/, ''))).toEqual(['start a', 'start b', 'stop b', 'stop a']);
    expect(l.errors).toEqual(['c: could not start; stopping what started']);
  });

  it('logs a part that fails to stop and still stops the others', async () => {
    const events: string[] = [];
    const l = log();
    const parts = [part('a', events), part('b', events, { failStop: true }), part('c', events)];
    await expect(stopAll(parts, 1, l)).resolves.toBeUndefined();
    expect(events).toEqual(['stop c by 1', 'stop b by 1', 'stop a by 1']);
    expect(l.errors).toEqual(['b: did not stop cleanly']);
  });
});

describe('together', () => {
  it('starts its parts in order and stops them at the same time', async () => {
    const events: string[] = [];
    let releaseA!: () => void;
    const a: Lifecycle = {
      name: 'a',
      start: () => Promise.resolve(void events.push('start a')),
      // Resolves only once b has been asked to stop: a sequential stop would never get there.
      stop: () => new Promise<void>((done) => (releaseA = done)).then(() => void events.push('a stopped')),
    };
    const b: Lifecycle = {
      name: 'b',
      start: () => Promise.resolve(void events.push('start b')),
      stop: () => {
        events.push('stop b');
        releaseA();
        return Promise.resolve();
      },
    };
    const group = together('ab', [a, b]);
    await group.start();
    await group.stop(0);
    expect(events).toEqual(['start a', 'start b', 'stop b', 'a stopped']);
  });

  it('stops every part even when one fails, then reports the failure', async () => {
    const events: string[] = [];
    const group = together('g', [part('a', events, { failStop: true }), part('b', events)]);
    await expect(group.stop(5)).rejects.toThrow('a cannot stop');
    expect(events).toEqual(['stop a by 5', 'stop b by 5']);
  });
});
