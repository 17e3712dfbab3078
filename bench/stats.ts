/** Percentile with linear interpolation between closest ranks (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo];
  const b = sorted[hi];
  if (a === undefined || b === undefined) throw new Error('percentile index out of range');
  return a + (b - a) * (rank - lo);
}

export function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

export function round1OrNull(x: number | null): number | null {
  return x === null || !Number.isFinite(x) ? null : round1(x);
}
