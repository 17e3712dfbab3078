// The idempotency-keys store on SQLite (see src/stores/idempotency-keys.ts).
import type { Kysely, Transaction } from 'kysely';
import type { IdempotencyKeyStore, IdempotencyRecord } from '../idempotency-keys.js';
import type { DB } from './schema.js';

export class SqlIdempotencyKeyStore implements IdempotencyKeyStore {
  constructor(private readonly db: Kysely<DB> | Transaction<DB>) {}

  async find(keyId: string, idemKey: string, since: Date): Promise<IdempotencyRecord | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['job_id as jobId', 'request_hash as requestHash', 'created_at as createdAt'])
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .executeTakeFirst();
    return row && row.createdAt >= since.toISOString() ? row : undefined;
  }

  async put(keyId: string, idemKey: string, requestHash: string, jobId: string, now: Date): Promise<void> {
    // A stale entry (older than the window) is replaced, not kept beside the new one.
    await this.db
      .insertInto('idempotency_keys')
      .values({
        key_id: keyId,
        idem_key: idemKey,
        request_hash: requestHash,
        job_id: jobId,
        created_at: now.toISOString(),
      })
      .onConflict((oc) =>
        oc.columns(['key_id', 'idem_key']).doUpdateSet((eb) => ({
          request_hash: eb.ref('excluded.request_hash'),
          job_id: eb.ref('excluded.job_id'),
          created_at: eb.ref('excluded.created_at'),
        })),
      )
      .execute();
  }

  async sweep(olderThan: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', olderThan.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
