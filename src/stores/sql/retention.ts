// Deleting finished records past jobs.recordTtlDays. Children go before their parents, so foreign keys
// stay on: an idempotency key refers to its job, an attempt to its delivery.
import type { Kysely, Transaction } from 'kysely';
import type { OldJob, RecordRetention } from '../retention.js';
import { inTransaction } from './in-transaction.js';
import type { DB } from './schema.js';
import { PENDING } from './webhook-deliveries.js';

export class SqlRecordRetention implements RecordRetention {
  // No Notify: deleting finished records makes nothing claimable or due.
  constructor(private readonly db: Kysely<DB> | Transaction<DB>) {}

  oldJobs(before: Date, limit: number): Promise<OldJob[]> {
    return this.db
      .selectFrom('jobs')
      .select((eb) => [
        'id',
        // A result already removed (expired) is no file to remove.
        eb.case().when('result_removed_at', 'is', null).then(eb.ref('result_key')).end().as('resultKey'),
      ])
      .where('finished_at', 'is not', null)
      .where('finished_at', '<', before.toISOString())
      .where('status', 'in', ['succeeded', 'failed', 'canceled'])
      .orderBy('finished_at')
      .limit(limit)
      .execute();
  }

  deleteJobs(ids: string[]): Promise<number> {
    return inTransaction(this.db, async (trx) => {
      let deleted = 0;
      for (const id of ids) {
        await trx.deleteFrom('idempotency_keys').where('job_id', '=', id).execute();
        const { numDeletedRows } = await trx.deleteFrom('jobs').where('id', '=', id).executeTakeFirst();
        deleted += Number(numDeletedRows);
      }
      return deleted;
    });
  }

  deleteOldDeliveries(before: Date, limit: number): Promise<number> {
    return inTransaction(this.db, async (trx) => {
      // A delivery's age is that of its last attempt: a redelivery keeps it (and its log) for a full term.
      const old = await trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '<>', PENDING)
        .where((eb) => eb(eb.fn.coalesce('last_attempt_at', 'created_at'), '<', before.toISOString()))
        .limit(limit)
        .execute();
      let deleted = 0;
      for (const { id } of old) {
        await trx.deleteFrom('webhook_attempts').where('delivery_id', '=', id).execute();
        const { numDeletedRows } = await trx
          .deleteFrom('webhook_deliveries')
          .where('id', '=', id)
          .where('status', '<>', PENDING)
          .executeTakeFirst();
        deleted += Number(numDeletedRows);
      }
      return deleted;
    });
  }
}
