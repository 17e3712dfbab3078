// The last hour of this node's renders, minute by minute, for /api/status and the /status page: how many
// ended each way, and how long they took and waited for a slot. Kept in memory (a node's own figures; a
// restart starts it over) in a bounded shape: 60 minute buckets, each holding counts and two histograms
// with fixed edges, so a busy minute costs no more than a quiet one and percentiles need no samples.
import { Histogram, type Percentiles } from './histogram.js';

/** How a render request ended, as the status page groups them. */
export const OUTCOMES = ['ok', 'failed', 'blocked', 'timedOut', 'rateLimited', 'queueFull', 'canceled'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const MINUTE_MS = 60_000;
export const WINDOW_MINUTES = 60;

export interface Clock {
  now(): Date;
}

interface Bucket {
  /** Start of the minute, ms since the epoch. */
  start: number;
  counts: Record<Outcome, number>;
  renderMs: Histogram;
  queueWaitMs: Histogram;
}

export interface MinuteFigures {
  /** Start of the minute (UTC, ISO 8601). */
  start: string;
  renders: Record<Outcome, number>;
  renderMs: Percentiles | null;
  queueWaitMs: Percentiles | null;
}

export interface HistoryFigures {
  /** The window: from the start of the oldest minute to now. */
  from: string;
  to: string;
  minuteSeconds: number;
  renders: Record<Outcome, number> & { total: number };
  /** Successful renders, queue wait included (as X-Render-Ms). */
  renderMs: Percentiles | null;
  /** Time from asking for a render slot to getting one, every render that got one. */
  queueWaitMs: Percentiles | null;
  /** Oldest first; always WINDOW_MINUTES of them, the last the current (partial) minute. */
  minutes: MinuteFigures[];
}

const zeroCounts = (): Record<Outcome, number> =>
  Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;

export class RenderHistory {
  /** Ring of buckets indexed by minute number; a slot holding an older minute is stale and reused. */
  private readonly ring: (Bucket | undefined)[] = new Array<Bucket | undefined>(WINDOW_MINUTES);

  constructor(private readonly clock: Clock = { now: () => new Date() }) {}

  outcome(outcome: Outcome): void {
    this.bucket().counts[outcome]++;
  }

  /** A successful render's time (ms), queue wait included. */
  renderTime(ms: number): void {
    this.bucket().renderMs.add(ms);
  }

  /** How long a render waited for its slot (ms; 0 when one was free). */
  queueWait(ms: number): void {
    this.bucket().queueWaitMs.add(ms);
  }

  figures(): HistoryFigures {
    const nowMs = this.clock.now().getTime();
    const current = minuteOf(nowMs);
    const total = zeroCounts();
    const renderMs = new Histogram();
    const queueWaitMs = new Histogram();
    const minutes: MinuteFigures[] = [];
    for (let m = current - WINDOW_MINUTES + 1; m <= current; m++) {
      const b = this.live(m);
      const start = new Date(m * MINUTE_MS).toISOString();
      if (!b) {
        minutes.push({ start, renders: zeroCounts(), renderMs: null, queueWaitMs: null });
        continue;
      }
      for (const o of OUTCOMES) total[o] += b.counts[o];
      renderMs.merge(b.renderMs);
      queueWaitMs.merge(b.queueWaitMs);
      minutes.push({
        start,
        renders: { ...b.counts },
        renderMs: b.renderMs.percentiles(),
        queueWaitMs: b.queueWaitMs.percentiles(),
      });
    }
    return {
      from: minutes[0]!.start,
      to: new Date(nowMs).toISOString(),
      minuteSeconds: MINUTE_MS / 1000,
      renders: { ...total, total: OUTCOMES.reduce((sum, o) => sum + total[o], 0) },
      renderMs: renderMs.percentiles(),
      queueWaitMs: queueWaitMs.percentiles(),
      minutes,
    };
  }

  private live(minute: number): Bucket | undefined {
    const b = this.ring[slotOf(minute)];
    return b && b.start === minute * MINUTE_MS ? b : undefined;
  }

  private bucket(): Bucket {
    const minute = minuteOf(this.clock.now().getTime());
    const found = this.live(minute);
    if (found) return found;
    const fresh: Bucket = {
      start: minute * MINUTE_MS,
      counts: zeroCounts(),
      renderMs: new Histogram(),
      queueWaitMs: new Histogram(),
    };
    this.ring[slotOf(minute)] = fresh;
    return fresh;
  }
}

const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS);
const slotOf = (minute: number) => ((minute % WINDOW_MINUTES) + WINDOW_MINUTES) % WINDOW_MINUTES;
