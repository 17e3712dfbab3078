// Everything one API key owns, across tables. Each method is several statements; callers run it in
// one transaction (tx.keyData), so a revocation or a purge is all or nothing.
import type { Kysely, Transaction } from 'kysely';
import type { KeyDataStore, PurgedRows, StoppedWork } from '../key-data.js';
import { ACTIVE, ended } from './job-rows.js';
import type { DB } from './schema.js';
import type { Notify } from './stores-over.js';
import { PENDING } from './webhook-deliveries.js';

export class SqlKeyDataStore implements KeyDataStore {
  // Stopping or deleting a key's work makes nothing claimable or due; but its monitors paused (or gone)
  // change every node's schedules (`monitors`), and a deleted key is news to every node (`keys`).
  constructor(
    private readonly db: Kysely<DB> | Transaction<DB>,
    private readonly notify: Notify,
  ) {}

  async stopWork(keyId: string, deliveryError: string, now: Date): Promise<StoppedWork> {
    const at = now.toISOString();
    const canceled = await this.db
      .updateTable('jobs')
      .set(ended('canceled', now))
      .where('key_id', '=', keyId)
      .where('status', 'in', ACTIVE)
      .returning('id')
      .execute();
    const paused = await this.db
      .updateTable('monitors')
      .set({ paused: 1, next_run_at: null, updated_at: at })
      .where('key_id', '=', keyId)
      .where('paused', '=', 0)
      .executeTakeFirst();
    const failed = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, last_error: deliveryError })
      .where('key_id', '=', keyId)
      .where('status', '=', PENDING)
      .executeTakeFirst();
    if (paused.numUpdatedRows > 0n) this.notify('monitors');
    return {
      jobs: canceled.map((r) => r.id),
      monitors: Number(paused.numUpdatedRows),
      deliveries: Number(failed.numUpdatedRows),
    };
  }

  /** Children before parents, so foreign keys stay on. */
  async deleteAll(keyId: string): Promise<PurgedRows | undefined> {
    const db = this.db;
    const triedJobs = await db
      .selectFrom('jobs')
      .select(['id as jobId', 'attempts'])
      .where('key_id', '=', keyId)
      .where('attempts', '>', 0)
      .execute();
    const { n: storedResults } = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_id', '=', keyId)
      .where('result_key', 'is not', null)
      .where('result_removed_at', 'is', null)
      .executeTakeFirstOrThrow();
    const monitorIds = (await db.selectFrom('monitors').select('id').where('key_id', '=', keyId).execute()).map(
      (r) => r.id,
    );
    const keysDeliveries = db.selectFrom('webhook_deliveries').select('id').where('key_id', '=', keyId);
    const keysJobs = db.selectFrom('jobs').select('id').where('key_id', '=', keyId);
    const keysMonitors = db.selectFrom('monitors').select('id').where('key_id', '=', keyId);
    const count = async (q: { executeTakeFirst(): Promise<{ numDeletedRows: bigint }> }) =>
      Number((await q.executeTakeFirst()).numDeletedRows);

    const attempts = await count(db.deleteFrom('webhook_attempts').where('delivery_id', 'in', keysDeliveries));
    const deliveries = await count(db.deleteFrom('webhook_deliveries').where('key_id', '=', keyId));
    const idempotencyKeys = await count(
      db.deleteFrom('idempotency_keys').where((eb) => eb.or([eb('key_id', '=', keyId), eb('job_id', 'in', keysJobs)])),
    );
    const jobs = await count(db.deleteFrom('jobs').where('key_id', '=', keyId));
    await db.deleteFrom('feeds').where('key_id', '=', keyId).execute();
    const captures = await count(db.deleteFrom('captures').where('monitor_id', 'in', keysMonitors));
    const monitors = await count(db.deleteFrom('monitors').where('key_id', '=', keyId));
    await db.deleteFrom('channels').where('key_id', '=', keyId).execute(); // they hold sealed secrets
    if ((await count(db.deleteFrom('api_keys').where('id', '=', keyId))) === 0) return undefined;
    if (monitors > 0) this.notify('monitors');
    this.notify('keys');
    return {
      jobs,
      monitors,
      captures,
      deliveries,
      attempts,
      idempotencyKeys,
      triedJobs,
      storedResults: Number(storedResults),
      monitorIds,
    };
  }
}
