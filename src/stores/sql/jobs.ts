// The jobs store on SQLite and PostgreSQL (see src/stores/jobs.ts). Workers claim with one `UPDATE ...
// RETURNING` (the flavor's: fair-claim.ts, or postgres/claims.ts with SKIP LOCKED), so two workers can never
// hold one job; every later write names the lease owner, so a worker whose lease was taken over (or
// whose job was canceled) cannot record a result. The `subject` of a job is the `monitor_id` column
// (a capture job's monitor), kept under its old name so the migrations stay additive.
// The row mapping, shared columns and list cursor are in job-rows.ts.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { JobRecord, JobStore, ListQuery, NewJob, StoredResult } from '../jobs.js';
import type { JobError, JobStatus } from '../../domain/job-outcome.js';
import { JOB_STATUSES } from '../../domain/job-outcome.js';
import { ACTIVE, ended, olderThan, toRecord } from './job-rows.js';
import type { DB } from './schema.js';
import type { SqlFlavor } from './flavor.js';
import type { Notify } from './stores-over.js';

export class SqlJobStore implements JobStore {
  constructor(
    private readonly db: Kysely<DB> | Transaction<DB>,
    private readonly notify: Notify,
    private readonly flavor: SqlFlavor,
  ) {}

  async insert(job: NewJob, now: Date): Promise<JobRecord> {
    const row = await this.db
      .insertInto('jobs')
      .values({
        id: job.id,
        key_id: job.keyId,
        kind: job.kind,
        status: 'queued',
        request: JSON.stringify(job.request),
        kept_request: JSON.stringify(job.keptRequest),
        base_url: job.baseUrl,
        webhook_url: job.webhookUrl ?? null,
        monitor_id: job.subject ?? null,
        created_at: now.toISOString(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    this.notify('jobs');
    return toRecord(row);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async getOwned(keyId: string, id: string, kinds: readonly string[]): Promise<JobRecord | undefined> {
    if (kinds.length === 0) return undefined;
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .where('kind', 'in', kinds)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async list(keyId: string, kinds: readonly string[], q: ListQuery): Promise<JobRecord[]> {
    if (kinds.length === 0) return [];
    const { before, status } = q;
    let query = this.db.selectFrom('jobs').selectAll().where('key_id', '=', keyId).where('kind', 'in', kinds);
    if (status !== undefined) query = query.where('status', '=', status);
    if (before) query = query.where(olderThan(before));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
    return rows.map(toRecord);
  }

  async countActive(keyId: string): Promise<number> {
    // Every kind counts toward jobs.maxQueuedPerKey: a key's monitors share its place in the queue.
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_id', '=', keyId)
      .where('status', 'in', ACTIVE)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async countByStatus(kinds: readonly string[]): Promise<Record<JobStatus, number>> {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    if (kinds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('jobs')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('kind', 'in', kinds)
      .groupBy('status')
      .execute();
    for (const { status, n } of rows) counts[status as JobStatus] = n;
    return counts;
  }

  async claim(owner: string, limit: number, leaseMs: number, maxAttempts: number, now: Date): Promise<JobRecord[]> {
    // A worker that died leaves its job `running` with a lease that runs out: such a job is claimable
    // again, as long as it has tries left (exhausted ones are failed by `failExhausted`).
    const { rows } = await this.flavor
      .claimJobs({
        owner,
        limit,
        maxAttempts,
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
      })
      .execute(this.db);
    return rows.map(toRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  cancelRevoked(now: Date): Promise<string[]> {
    return cancelRevokedJobs(this.db, now);
  }

  async runningOf(owner: string): Promise<Set<string>> {
    // Every poll: read from the partial index of unfinished jobs, not the whole table.
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('status', 'in', ACTIVE)
      .where('status', '=', 'running')
      .where('lease_owner', '=', owner)
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  failExhausted(maxAttempts: number, now: Date): Promise<JobRecord[]> {
    return failExhaustedJobs(this.db, maxAttempts, now);
  }

  async renew(owner: string, ids: readonly string[], leaseMs: number, now: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('jobs')
      .set({ lease_expires_at: new Date(now.getTime() + leaseMs).toISOString() })
      .where('status', 'in', ACTIVE) // read through the index of unfinished jobs, not the whole table
      .where('status', '=', 'running')
      .where('lease_owner', '=', owner)
      .where('id', 'in', ids)
      .execute();
  }

  succeed(id: string, owner: string, result: StoredResult | undefined, now: Date): Promise<JobRecord | undefined> {
    return succeedJob(this.db, id, owner, result, now);
  }

  fail(id: string, owner: string, error: JobError, now: Date): Promise<JobRecord | undefined> {
    return failJob(this.db, id, owner, error, now);
  }

  async requeue(id: string, owner: string, error: JobError): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({
        status: 'queued',
        lease_owner: null,
        lease_expires_at: null,
        error_code: error.code,
        error_message: error.message,
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    const requeued = result.numUpdatedRows === 1n;
    if (requeued) this.notify('jobs');
    return requeued;
  }

  async release(owner: string): Promise<number> {
    // A graceful stop hands its unfinished jobs back; the interrupted try does not count.
    const result = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'queued',
        lease_owner: null,
        lease_expires_at: null,
        attempts: this.flavor.max2(sql<number>`${eb.ref('attempts')} - 1`, sql<number>`0`),
      }))
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    const released = Number(result.numUpdatedRows);
    if (released) this.notify('jobs');
    return released;
  }

  cancel(keyId: string, id: string, kinds: readonly string[], now: Date): Promise<JobRecord | undefined> {
    return cancelJob(this.db, keyId, id, kinds, now);
  }

  async activeFor(subject: string): Promise<JobRecord | undefined> {
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('monitor_id', '=', subject)
      .where('status', 'in', ACTIVE)
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  cancelFor(subject: string, now: Date): Promise<string[]> {
    return cancelJobsFor(this.db, subject, now);
  }

  async expiredResults(now: Date, limit: number): Promise<JobRecord[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('result_key', 'is not', null)
      .where('result_removed_at', 'is', null)
      .where('result_expires_at', '<=', now.toISOString())
      .orderBy('result_expires_at')
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  async markResultRemoved(id: string, now: Date): Promise<void> {
    await this.db.updateTable('jobs').set({ result_removed_at: now.toISOString() }).where('id', '=', id).execute();
  }

  async holdsResult(id: string, key: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('id', '=', id)
      .where('result_key', '=', key)
      .where('result_removed_at', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  async deleteFinished(kind: string, before: Date, limit: number): Promise<number> {
    const result = await this.db
      .deleteFrom('jobs')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where('kind', '=', kind)
          .where('finished_at', 'is not', null)
          .where('finished_at', '<', before.toISOString())
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

// --- the statements that end jobs ----------------------------------------------------------------
// Success, failure, cancelation (one job, a monitor's, a revoked key's stragglers) and the failure of jobs
// out of tries; SqlJobStore forwards to them.

type Db = Kysely<DB> | Transaction<DB>;

export async function cancelRevokedJobs(db: Db, now: Date): Promise<string[]> {
  // Stragglers: jobs of a revoked key queued after (or running despite) its revocation.
  const rows = await db
    .updateTable('jobs')
    .set(ended('canceled', now))
    .where('status', 'in', ACTIVE)
    .where('key_id', 'in', (eb) => eb.selectFrom('api_keys').select('id').where('revoked_at', 'is not', null))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function failExhaustedJobs(db: Db, maxAttempts: number, now: Date): Promise<JobRecord[]> {
  const rows = await db
    .updateTable('jobs')
    .set((eb) => ({
      ...ended('failed', now)(eb),
      error_code: eb.fn.coalesce('error_code', eb.val('internal')),
      error_message: eb.fn.coalesce(
        'error_message',
        eb.val('the worker rendering it stopped before finishing, on every try'),
      ),
    }))
    .where('status', 'in', ACTIVE) // read through the index of unfinished jobs, not the whole table
    .where('status', '=', 'running')
    .where('lease_expires_at', '<', now.toISOString())
    .where('attempts', '>=', maxAttempts)
    .returningAll()
    .execute();
  return rows.map(toRecord);
}

export async function succeedJob(
  db: Db,
  id: string,
  owner: string,
  result: StoredResult | undefined,
  now: Date,
): Promise<JobRecord | undefined> {
  const row = await db
    .updateTable('jobs')
    .set((eb) => ({
      ...ended('succeeded', now)(eb),
      error_code: null,
      error_message: null,
      ...(result && {
        result_key: result.key,
        result_type: result.contentType,
        result_bytes: result.bytes,
        result_meta: JSON.stringify(result.meta),
        result_expires_at: result.expiresAt,
      }),
    }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .returningAll()
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function failJob(
  db: Db,
  id: string,
  owner: string,
  error: JobError,
  now: Date,
): Promise<JobRecord | undefined> {
  const row = await db
    .updateTable('jobs')
    .set((eb) => ({ ...ended('failed', now)(eb), error_code: error.code, error_message: error.message }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .returningAll()
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function cancelJob(
  db: Db,
  keyId: string,
  id: string,
  kinds: readonly string[],
  now: Date,
): Promise<JobRecord | undefined> {
  if (kinds.length === 0) return undefined;
  const row = await db
    .updateTable('jobs')
    .set(ended('canceled', now))
    .where('id', '=', id)
    .where('key_id', '=', keyId)
    .where('kind', 'in', kinds)
    .where('status', 'in', ACTIVE)
    .returningAll()
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function cancelJobsFor(db: Db, subject: string, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('jobs')
    .set(ended('canceled', now))
    .where('monitor_id', '=', subject)
    .where('status', 'in', ACTIVE)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
