// When a failed delivery is tried again. The schedule is config (the contract's default: about 5 s,
// 5 min, 30 min, 2 h, 5 h, 10 h); each delay gets ±20 % jitter so that many deliveries failing
// together (a receiver that was down) do not all come back at the same instant.
export const JITTER = 0.2;

/**
 * The delay after the `failures`-th failed attempt since the schedule started (1-based), or
 * undefined when the retries are used up.
 */
export function retryDelayMs(
  failures: number,
  scheduleMs: readonly number[],
  random: () => number = Math.random,
): number | undefined {
  const base = scheduleMs[failures - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
