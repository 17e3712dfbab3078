// Fake time for a whole service (startTestService(..., { clock })): schedules, digests, quiet hours and
// expiries read it, so a test moves time on instead of waiting for it.
import type { Clock } from '../../src/domain/clock.js';

export class TestClock implements Clock {
  private ms: number;

  constructor(start: Date | string = new Date()) {
    this.ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  set(to: Date | string): void {
    this.ms = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
