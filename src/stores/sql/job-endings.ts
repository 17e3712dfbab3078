// The statements of the jobs store on SQLite that end jobs: success, failure, cancelation (one job, a
// monitor's, a revoked key's stragglers) and the failure of jobs out of tries. Apart from jobs.ts, whose
// SqlJobStore forwards to them, so the store's reads, claims and result sweeps stay readable on their own.
import type { Kysely, Transaction } from 'kysely';
import type { JobRecord, StoredResult } from '../jobs.js';
import type { JobError } from '../../domain/job-outcome.js';
import { ACTIVE, ended, toRecord } from './job-rows.js';
import type { DB } from './schema.js';

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
