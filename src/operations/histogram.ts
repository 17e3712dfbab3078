// A histogram of durations (ms) with fixed edges, for percentiles in bounded memory: every histogram has
// the same edges, so a minute's can be merged into an hour's. Edges grow by 10 % from 1 ms to 10 minutes,
// so a percentile read from it is within 10 % of the true value (and never outside the smallest and
// largest values seen); 0 ms (a render slot free at once) has a bucket of its own.

export interface Percentiles {
  /** How many values. */
  count: number;
  p50: number;
  p95: number;
  max: number;
}

const GROWTH = 1.1;
const TOP_MS = 600_000;

/** Upper edges: 0, then 1 ms × 1.1^k up to TOP_MS; anything above goes in a last, open bucket. */
export const EDGES: readonly number[] = (() => {
  const edges = [0];
  for (let e = 1; e < TOP_MS; e *= GROWTH) edges.push(e);
  edges.push(TOP_MS);
  return edges;
})();

export class Histogram {
  private readonly counts = new Uint32Array(EDGES.length + 1);
  private count = 0;
  private min = Infinity;
  private max = -Infinity;

  add(ms: number): void {
    const value = Math.max(0, ms);
    this.counts[bucketOf(value)]!++;
    this.count++;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }

  merge(other: Histogram): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
  }

  /** p50, p95 and the largest value, rounded to whole ms; null when empty. */
  percentiles(): Percentiles | null {
    if (this.count === 0) return null;
    return {
      count: this.count,
      p50: Math.round(this.quantile(0.5)),
      p95: Math.round(this.quantile(0.95)),
      max: Math.round(this.max),
    };
  }

  /** The nearest-rank quantile, placed linearly inside its bucket and kept within [min, max]. */
  quantile(q: number): number {
    const rank = Math.max(1, Math.ceil(q * this.count));
    let below = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const n = this.counts[i]!;
      if (below + n >= rank) {
        const lo = i === 0 ? 0 : EDGES[i - 1]!;
        const hi = i < EDGES.length ? EDGES[i]! : this.max;
        const at = lo + (hi - lo) * ((rank - below) / n);
        return Math.min(this.max, Math.max(this.min, at));
      }
      below += n;
    }
    return this.max;
  }
}

/** The first bucket whose upper edge is at least `value` (binary search over EDGES). */
function bucketOf(value: number): number {
  let lo = 0;
  let hi = EDGES.length; // EDGES.length is the open bucket above TOP_MS
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (EDGES[mid]! >= value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
