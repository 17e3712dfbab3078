/**
 * Held back from a wait's own timeout (waitForSelector, waitForFunction, a step), so the wait fails with
 * its own message (422) before the whole render times out (504). 100 ms, then 250 ms, were too little on a
 * loaded machine: the render's timeout fired while Playwright was still reporting the wait's (a step on an
 * element that cannot take the action was sometimes a 504). A longer reserve keeps the render's deadline;
 * the wait gets that much less of it.
 */
export const WAIT_RESERVE_MS = 500;

/** The time left of one render's `timeout`, shared by every step so the whole render fits in it. */
export class Budget {
  private readonly deadline: number;

  constructor(
    readonly timeoutMs: number,
    start = Date.now(),
  ) {
    this.deadline = start + timeoutMs;
  }

  /** Milliseconds left, less `reserve` (so a step's own timeout fires before the whole render's). */
  remaining(reserve = 0): number {
    return Math.max(1, this.deadline - Date.now() - reserve);
  }
}
