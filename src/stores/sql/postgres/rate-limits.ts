// The token buckets shared by every node (see src/stores/rate-limits.ts): rows of the UNLOGGED table
// rate_buckets, each take ONE statement, so 20 a minute means 20 across the cluster whichever node
// answers. The refill rule is the one-node rule (src/stores/sql/sqlite/memory-rate-limits.ts).
import type pg from 'pg';
import { BUCKET_FULL_AFTER_MS, rateLimitAnswer, type RateLimitAnswer, type RateLimitStore } from '../../rate-limits.js';

// $1 bucket, $2 perMinute, $3 now (ms), $4 refill rate (tokens per ms). A new bucket starts full, less
// the token taken. An existing one refills by the time since its last take (never negative: another
// node's clock may be ahead; updated_at_ms only moves forward) and gives a token if it then holds one.
// A refused take writes nothing: a continuous refill from the old row reaches the same tokens later.
// The row is locked by the upsert, so concurrent takes on any node queue up on it.
// The refusal branch reads the bucket as of the statement's start, only for the headers' figures: if a
// concurrent take emptied it since, that snapshot still shows a token, and the answer says 0 (the
// longest Retry-After) rather than a remaining count the refusal contradicts.
const REFILLED = 'LEAST($2::float8, b.tokens + GREATEST(0, $3::bigint - b.updated_at_ms) * $4::float8)';
const TAKE = `
WITH taken AS (
  INSERT INTO rate_buckets AS b (bucket, tokens, updated_at_ms) VALUES ($1, $2::float8 - 1, $3::bigint)
  ON CONFLICT (bucket) DO UPDATE
    SET tokens = ${REFILLED} - 1, updated_at_ms = GREATEST(b.updated_at_ms, $3::bigint)
    WHERE ${REFILLED} >= 1
  RETURNING tokens
)
SELECT true AS allowed, tokens FROM taken
UNION ALL
SELECT false, CASE WHEN ${REFILLED} >= 1 THEN 0 ELSE ${REFILLED} END FROM rate_buckets b WHERE b.bucket = $1 AND NOT EXISTS (SELECT 1 FROM taken)`;

/** Idle buckets are deleted at most this often, by whichever take comes next. */
const CLEANUP_EVERY_MS = 60_000;
/** Twice the refill time: a bucket deleted this late was full, whatever the skew between nodes' clocks. */
const IDLE_BEFORE_DELETE_MS = 2 * BUCKET_FULL_AFTER_MS;

export class PostgresRateLimits implements RateLimitStore {
  private lastCleanup = -Infinity;

  constructor(private readonly pool: pg.Pool) {}

  async take(bucketId: string, perMinute: number, nowMs: number): Promise<RateLimitAnswer> {
    if (nowMs - this.lastCleanup >= CLEANUP_EVERY_MS) {
      this.lastCleanup = nowMs;
      void this.deleteIdle(nowMs).catch(() => {
        // a missed cleanup only leaves full buckets a minute longer; the next one tries again
      });
    }
    const { rows } = await this.pool.query<{ allowed: boolean; tokens: number }>(TAKE, [
      bucketId,
      perMinute,
      Math.floor(nowMs),
      perMinute / 60_000,
    ]);
    // No row: refused while another node created the bucket in the same instant (an empty bucket).
    const row = rows[0] ?? { allowed: false, tokens: 0 };
    return rateLimitAnswer(row.allowed, Number(row.tokens), perMinute);
  }

  /** Delete buckets idle long enough to be full again (a missing bucket is a full one); how many. */
  async deleteIdle(nowMs: number): Promise<number> {
    const result = await this.pool.query('DELETE FROM rate_buckets WHERE updated_at_ms < $1', [
      Math.floor(nowMs) - IDLE_BEFORE_DELETE_MS,
    ]);
    return result.rowCount ?? 0;
  }
}
