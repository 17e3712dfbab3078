// The webhook outbox (webhook_deliveries) and its attempt log (webhook_attempts).
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type {
  AttemptOutcome,
  AttemptRecord,
  DeliveryQuery,
  DeliveryRecord,
  DeliveryStore as DeliveryStoreInterface,
  HeldFor,
  NewDelivery,
} from '../webhook-deliveries.js';
import type { DeliveryStatus } from '../../domain/delivery-status.js';
import { REVOKED_REASON } from '../webhook-deliveries.js';
import { inTransaction } from './in-transaction.js';
import type { SqlFlavor } from './flavor.js';
import type { DB, WebhookDeliveriesTable } from './schema.js';
import type { Notify } from './stores-over.js';

/**
 * A literal, not a parameter: SQLite uses the partial indexes on deliveries (`WHERE status = 'pending'`,
 * `WHERE status <> 'pending'`) only when a query repeats that condition with the same literal value.
 */
export const PENDING = sql.lit('pending');

const toRecord = (r: Selectable<WebhookDeliveriesTable>): DeliveryRecord => ({
  id: r.id,
  keyId: r.key_id,
  messageId: r.message_id,
  eventType: r.event_type,
  url: r.url,
  payload: r.payload,
  jobId: r.job_id,
  monitorId: r.monitor_id,
  status: r.status as DeliveryStatus,
  attempts: r.attempts,
  scheduleFrom: r.schedule_from,
  nextAttemptAt: r.next_attempt_at,
  lastAttemptAt: r.last_attempt_at,
  lastResponseStatus: r.last_response_status,
  lastError: r.last_error,
  createdAt: r.created_at,
  ...(r.channel_id !== null && { channelId: r.channel_id }),
  ...(r.channel_type !== null && { channelType: r.channel_type }),
  ...(r.held_for !== null && { heldFor: r.held_for as HeldFor }),
  ...(r.batch !== null && { batch: r.batch }),
});

export class SqlDeliveryStore implements DeliveryStoreInterface {
  constructor(
    private readonly db: Kysely<DB> | Transaction<DB>,
    private readonly notify: Notify,
    private readonly flavor: SqlFlavor,
  ) {}

  async insert(d: NewDelivery, now: Date): Promise<void> {
    const at = now.toISOString();
    const channel = d.channel;
    await this.db
      .insertInto('webhook_deliveries')
      .values({
        id: d.id,
        key_id: d.keyId,
        message_id: d.messageId,
        event_type: d.eventType,
        url: d.url,
        payload: d.payload,
        job_id: d.jobId ?? null,
        monitor_id: d.monitorId ?? null,
        status: 'pending',
        next_attempt_at: channel?.releaseAt?.toISOString() ?? at,
        created_at: at,
        channel_id: channel?.channelId ?? null,
        channel_type: channel?.channelType ?? null,
        held_for: channel?.heldFor ?? null,
        batch: channel?.batch ?? null,
      })
      .execute();
    this.notify('deliveries');
  }

  async claimDue(limit: number, leaseMs: number, now: Date): Promise<DeliveryRecord[]> {
    if (limit <= 0) return [];
    const at = now.toISOString();
    // The lease covers one attempt in flight; a process that dies mid-attempt leaves it to run out,
    // and the delivery is tried again with the same message id (receivers de-duplicate on it). On
    // PostgreSQL the picked rows are locked and those another dispatcher holds are skipped (the flavor).
    const rows = await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_expires_at: new Date(now.getTime() + leaseMs).toISOString() })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', PENDING)
          .where('next_attempt_at', '<=', at)
          .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<', at)]))
          .where('key_id', 'not in', (k) => k.selectFrom('api_keys').select('id').where('revoked_at', 'is not', null))
          .orderBy('next_attempt_at')
          .orderBy('id')
          .limit(limit)
          .$call((qb) => this.flavor.lockSkipping(qb)),
      )
      .returningAll()
      .execute();
    return rows.map(toRecord);
  }

  async claimBatch(batch: string, leaseMs: number, now: Date): Promise<DeliveryRecord[]> {
    const at = now.toISOString();
    const rows = await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_expires_at: new Date(now.getTime() + leaseMs).toISOString() })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('batch', '=', batch)
          .where('status', '=', PENDING)
          .where('next_attempt_at', '<=', at)
          .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<', at)]))
          .$call((qb) => this.flavor.lockSkipping(qb)),
      )
      .returningAll()
      .execute();
    return rows.map(toRecord);
  }

  async nextDueAt(): Promise<Date | undefined> {
    // The later of the due time and the lease, per row (the flavor's two-argument max); '' sorts before any time.
    const later = this.flavor.max2(
      sql.raw<string>('next_attempt_at'),
      sql.raw<string>("COALESCE(lease_expires_at, '')"),
    );
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select(sql<string | null>`MIN(${later})`.as('at'))
      .where('status', '=', PENDING)
      .executeTakeFirst();
    return row?.at ? new Date(row.at) : undefined;
  }

  recordAttempt(d: DeliveryRecord, outcome: AttemptOutcome, recordedAt = new Date()): Promise<void> {
    const attempt = d.attempts + 1;
    const startedAt = outcome.startedAt.toISOString();
    const responseStatus = outcome.responseStatus ?? null;
    const error = outcome.error ?? null;
    const now = recordedAt.toISOString();
    return inTransaction(this.db, async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: d.id,
          attempt,
          started_at: startedAt,
          duration_ms: outcome.durationMs,
          response_status: responseStatus,
          error,
        })
        .execute();
      // A redeliver asked for during the attempt wins over the attempt's own outcome: send again now.
      await trx
        .updateTable('webhook_deliveries')
        .set((eb) => {
          const redeliver = eb.case().when('redeliver_requested', '=', 1);
          return {
            attempts: attempt,
            status: redeliver.then('pending').else(outcome.status).end(),
            next_attempt_at: redeliver
              .then(now)
              .else(outcome.nextAttemptAt?.toISOString() ?? null)
              .end(),
            schedule_from: redeliver.then(attempt).else(eb.ref('schedule_from')).end(),
            redeliver_requested: 0,
            lease_expires_at: null,
            held_for: null, // released: what follows is retries
            last_attempt_at: startedAt,
            last_response_status: responseStatus,
            last_error: error,
          };
        })
        .where('id', '=', d.id)
        .where('status', '=', PENDING) // failed meanwhile (its key was revoked): it stays failed
        .execute();
    });
  }

  async failRevoked(): Promise<number> {
    // A revoked key's events are not sent; also those recorded by an instance that had not heard of it
    // yet. Run before every claim. `+key_id` (SQLite's unary plus, through the flavor) keeps SQLite on the
    // small index of pending deliveries rather than walking every delivery a revoked key ever had.
    const { numUpdatedRows } = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, last_error: REVOKED_REASON })
      .where('status', '=', PENDING)
      .where(this.flavor.unindexed('key_id'), 'in', (eb) =>
        eb.selectFrom('api_keys').select('id').where('revoked_at', 'is not', null),
      )
      .executeTakeFirst();
    return Number(numUpdatedRows);
  }

  async stopForUrl(d: DeliveryRecord, reason: string): Promise<number> {
    const { numUpdatedRows } = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, last_error: reason })
      .where('key_id', '=', d.keyId)
      // A channel's url is shown masked, and two channels may show the same: a channel is known by its id.
      .$if(d.channelId === undefined, (qb) => qb.where('url', '=', d.url).where('channel_id', 'is', null))
      .$if(d.channelId !== undefined, (qb) => qb.where('channel_id', '=', d.channelId!))
      .where('status', '=', PENDING)
      .where('id', '<>', d.id)
      .where('lease_expires_at', 'is', null)
      .executeTakeFirst();
    return Number(numUpdatedRows);
  }

  async failForChannel(channelId: string, reason: string): Promise<number> {
    const { numUpdatedRows } = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, held_for: null, last_error: reason })
      .where('channel_id', '=', channelId)
      .where('status', '=', PENDING)
      .where('lease_expires_at', 'is', null)
      .executeTakeFirst();
    return Number(numUpdatedRows);
  }

  async get(keyId: string, id: string): Promise<DeliveryRecord | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  attempts(id: string): Promise<AttemptRecord[]> {
    return this.db
      .selectFrom('webhook_attempts')
      .select([
        'attempt',
        'started_at as startedAt',
        'duration_ms as durationMs',
        'response_status as responseStatus',
        'error',
      ])
      .where('delivery_id', '=', id)
      .orderBy('attempt')
      .execute();
  }

  async list(keyId: string, q: DeliveryQuery): Promise<DeliveryRecord[]> {
    let query = this.db.selectFrom('webhook_deliveries').selectAll().where('key_id', '=', keyId);
    if (q.jobId !== undefined) query = query.where('job_id', '=', q.jobId);
    if (q.monitorId !== undefined) query = query.where('monitor_id', '=', q.monitorId);
    if (q.status !== undefined) query = query.where('status', '=', q.status);
    if (q.channelId !== undefined) query = query.where('channel_id', '=', q.channelId);
    const before = q.before;
    if (before)
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', before.createdAt),
          eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
        ]),
      );
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
    return rows.map(toRecord);
  }

  async redeliver(keyId: string, id: string, now: Date): Promise<DeliveryRecord | undefined> {
    const at = now.toISOString();
    const row = await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'pending',
        next_attempt_at: at,
        schedule_from: eb.ref('attempts'),
        held_for: null, // sent now, whatever it waited for
        // An attempt in flight (leased) records its outcome last: it sees the request and sends again.
        redeliver_requested: eb.case().when('lease_expires_at', '>', at).then(eb.lit(1)).else(eb.lit(0)).end(),
      }))
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    this.notify('deliveries');
    return toRecord(row);
  }

  async countByStatus(): Promise<Record<DeliveryStatus, number>> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    const counts = { pending: 0, succeeded: 0, failed: 0 };
    for (const { status, n } of rows) counts[status as DeliveryStatus] = Number(n);
    return counts;
  }
}
