// The status page's cluster figures on either database (see src/stores/status-reads.ts). Each statement
// repeats the condition of a partial index as a literal (SQLite uses a partial index only then), so
// they read through an index rather than the whole table: deliveries_due, deliveries_finished,
// jobs_expiring; the capture bytes come from the covering index captures_stored_bytes.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DeliveryBacklog, StatusReadStore } from '../status-reads.js';
import type { DB } from './schema.js';

/** COUNT and SUM arrive as strings from PostgreSQL (bigint, numeric) and as null over no rows. */
const num = (v: unknown) => Number(v ?? 0);

export class SqlStatusReads implements StatusReadStore {
  constructor(private readonly db: Kysely<DB> | Transaction<DB>) {}

  async failingMonitors(): Promise<number> {
    const row = await this.db
      .selectFrom('monitors')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('last_status', '=', 'failed')
      .where('paused', '=', 0)
      .executeTakeFirst();
    return num(row?.n);
  }

  async deliveryBacklog(): Promise<DeliveryBacklog> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select([
        sql<number>`COUNT(*)`.as('pending'),
        sql<number>`SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END)`.as('retrying'),
        sql<string | null>`MIN(created_at)`.as('oldest'),
      ])
      .where(sql<boolean>`status = 'pending'`)
      .executeTakeFirst();
    return { pending: num(row?.pending), retrying: num(row?.retrying), oldestPendingAt: row?.oldest ?? null };
  }

  async deliveriesEndedSince(since: Date): Promise<{ succeeded: number; failed: number }> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['status', sql<number>`COUNT(*)`.as('n')])
      .where(sql<boolean>`status <> 'pending'`)
      .where(sql<boolean>`COALESCE(last_attempt_at, created_at) >= ${since.toISOString()}`)
      .groupBy('status')
      .execute();
    const ended = { succeeded: 0, failed: 0 };
    for (const { status, n } of rows) if (status === 'succeeded' || status === 'failed') ended[status] = num(n);
    return ended;
  }

  async storedBytes(): Promise<{ captures: number; results: number }> {
    const [captures, results] = await Promise.all([
      this.db
        .selectFrom('captures')
        .select(sql<number>`SUM(stored_bytes)`.as('bytes'))
        .executeTakeFirst(),
      this.db
        .selectFrom('jobs')
        .select(sql<number>`SUM(result_bytes)`.as('bytes'))
        .where(sql<boolean>`result_key IS NOT NULL AND result_removed_at IS NULL`)
        .executeTakeFirst(),
    ]);
    return { captures: num(captures?.bytes), results: num(results?.bytes) };
  }
}
