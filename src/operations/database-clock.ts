// The cluster's one clock: the database server's time, as seen from this node. Each node keeps the offset
// between its own clock and the database's, measured at start and every REFRESH_MS, and adds it to its
// own clock; reading the time costs no query. A reading is corrected by half its round trip (the server
// read its clock about midway), and of SAMPLES readings the one with the shortest round trip is kept, as
// the least disturbed. A failed refresh keeps the last offset (clocks drift by milliseconds a minute).
import type { Clock } from '../domain/clock.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';

export const REFRESH_MS = 30_000;
const SAMPLES = 3;
/** An offset this large is logged once: the node's clock is wrong (its leases and ticks still follow the database). */
const WARN_OFFSET_MS = 1000;

export class DatabaseClock implements Clock, Lifecycle {
  readonly name = 'database clock';
  /** Database time minus this node's time, in ms. */
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private warned = false;

  constructor(
    /** One reading of the database's time. */
    private readonly readTime: () => Promise<Date>,
    private readonly log: Logger,
    private readonly refreshMs = REFRESH_MS,
  ) {}

  now(): Date {
    return new Date(Date.now() + this.offset);
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Measure the offset now; throws when the database cannot be read. */
  async sync(): Promise<void> {
    let best: { offset: number; roundTrip: number } | undefined;
    for (let i = 0; i < SAMPLES; i++) {
      const sentAt = Date.now();
      const started = performance.now();
      const databaseTime = await this.readTime();
      const roundTrip = performance.now() - started;
      const offset = databaseTime.getTime() - (sentAt + roundTrip / 2);
      if (!best || roundTrip < best.roundTrip) best = { offset, roundTrip };
    }
    this.offset = Math.round(best!.offset) || 0; // never -0
    if (Math.abs(this.offset) >= WARN_OFFSET_MS && !this.warned) {
      this.warned = true;
      this.log.warn(
        { offsetMs: this.offset },
        "this node's clock differs from the database's: leases, schedules and retries follow the database's",
      );
    }
  }

  /** The first offset before anything reads the time, then a refresh every refreshMs. */
  async start(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  stop(): Promise<void> {
    clearInterval(this.timer);
    return Promise.resolve();
  }

  private async refresh(): Promise<void> {
    try {
      await this.sync();
    } catch (err) {
      this.log.warn({ err }, 'could not read the database clock; keeping the last offset');
    }
  }
}
