// The one way tests wait: on a condition, with a stated deadline and a message that names what never
// happened. Asserting on elapsed time instead makes a test slow on a fast machine and flaky on a busy one.

/**
 * Polls `probe` until it returns something other than undefined/false and returns that value; throws
 * "timed out after N ms waiting for <what>" after `timeoutMs`. `what` may be a function, to describe the
 * state at the timeout (e.g. the counts that never reached their mark).
 */
export async function until<T>(
  what: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await pause(everyMs);
  }
}

/**
 * A fixed wait, ONLY for showing that something does not happen within a bound. The caller states the
 * bound and why it is enough in a comment (e.g. "ten dispatcher polls"); anything that can be waited on
 * is waited on with `until`.
 */
export function sleep(ms: number): Promise<void> {
  return pause(ms);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until the wall clock is past `iso`, a timestamp the service wrote: the next record it writes
 * gets a later one, so "newest first" has one right answer.
 */
export async function clockPast(iso: string): Promise<void> {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) throw new Error(`not a timestamp: ${iso}`);
  await until(`the clock to pass ${iso}`, () => Date.now() > at, 1000, 1);
}
