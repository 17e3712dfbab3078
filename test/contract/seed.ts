// Rows of other stores that the key, key-data, delivery and retention contracts need around them (jobs,
// idempotency keys, monitors, captures, deliveries), made through the Stores interfaces only. Kept in
// one place: when another store's interface changes, only this file follows it.
import type { Backend } from '../../src/stores/backend.js';
import type { NewDelivery } from '../../src/stores/webhook-deliveries.js';

export const T0 = new Date('2026-11-22T10:00:00.000Z');
export const at = (ms: number) => new Date(T0.getTime() + ms);

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString().padStart(6, '0')}`;

export function newDelivery(keyId: string, fields: Partial<NewDelivery> = {}): NewDelivery {
  const id = fields.id ?? nextId('dlv');
  return {
    id,
    keyId,
    messageId: `msg_${id}`,
    eventType: 'job.succeeded',
    url: 'https://receiver.test/hook',
    payload: '{"type":"job.succeeded","data":{}}',
    ...fields,
  };
}

/** A pending delivery recorded at `now`. */
export async function seedDelivery(
  backend: Backend,
  keyId: string,
  now: Date,
  fields: Partial<NewDelivery> = {},
): Promise<string> {
  const d = newDelivery(keyId, fields);
  await backend.stores.deliveries.insert(d, now);
  return d.id;
}

/** A render job queued at `now`. */
export async function seedJob(backend: Backend, keyId: string, now: Date): Promise<string> {
  const id = nextId('job');
  await backend.stores.jobs.insert(
    {
      id,
      keyId,
      kind: 'pdf',
      request: { html: '<p>x</p>' },
      keptRequest: { filename: null, format: null },
      baseUrl: 'http://x.test',
    },
    now,
  );
  return id;
}

/** A job claimed by `owner` at `now` (one try made): running. Seed queued jobs after it: it claims them too. */
export async function seedRunningJob(backend: Backend, keyId: string, now: Date, owner = 'w1'): Promise<string> {
  const id = await seedJob(backend, keyId, now);
  const claimed = await backend.stores.jobs.claim(owner, 1000, 60_000, 5, now);
  if (!claimed.some((j) => j.id === id)) throw new Error(`seed: job ${id} was not claimed`);
  return id;
}

/** A job that succeeded at `finishedAt` with a stored result `results/<id>`. */
export async function seedSucceededJob(backend: Backend, keyId: string, finishedAt: Date): Promise<string> {
  const id = await seedRunningJob(backend, keyId, finishedAt);
  const result = {
    key: `results/${id}`,
    contentType: 'application/pdf',
    bytes: 10,
    meta: { renderMs: 1, truncated: false },
    expiresAt: new Date(finishedAt.getTime() + 3600_000).toISOString(),
  };
  if (!(await backend.stores.jobs.succeed(id, 'w1', result, finishedAt))) throw new Error(`seed: ${id} not succeeded`);
  return id;
}

/** A job that failed for good at `finishedAt`. */
export async function seedFailedJob(backend: Backend, keyId: string, finishedAt: Date): Promise<string> {
  const id = await seedRunningJob(backend, keyId, finishedAt);
  const error = { code: 'render_failed', message: 'seeded failure' };
  if (!(await backend.stores.jobs.fail(id, 'w1', error, finishedAt))) throw new Error(`seed: ${id} not failed`);
  return id;
}

/** An idempotency key (returned) of `keyId` naming `jobId`. */
export async function seedIdempotencyKey(backend: Backend, keyId: string, jobId: string, now: Date): Promise<string> {
  const idemKey = nextId('idem');
  await backend.stores.idempotency.put(keyId, idemKey, 'hash', jobId, now);
  return idemKey;
}

/** An active monitor of `keyId`, due at its next run. */
export async function seedMonitor(backend: Backend, keyId: string, now: Date): Promise<string> {
  const id = nextId('mon');
  type Settings = Parameters<Backend['stores']['monitors']['insert']>[0]['settings'];
  const settings = {
    name: id,
    url: 'http://x.test',
    schedule: '*/5 * * * *',
    timezone: 'UTC',
    paused: false,
    capture: {},
    diff: {},
    notifyWhen: [],
    notify: ['change'],
    tags: [],
    retention: { keep: 10 },
    webhookUrl: undefined,
  } as unknown as Settings;
  await backend.stores.monitors.insert({ id, keyId, settings, baseUrl: 'http://x.test' }, now);
  await backend.stores.monitors.setNextRun(id, new Date(now.getTime() + 300_000));
  return id;
}

/** A failed capture of `monitorId` (no files). */
export async function seedCapture(backend: Backend, monitorId: string, now: Date): Promise<string> {
  const id = nextId('cap');
  await backend.stores.captures.insert({
    id,
    monitorId,
    status: 'failed',
    reason: 'manual',
    specVersion: 1,
    takenAt: now.toISOString(),
    durationMs: 1,
    width: null,
    height: null,
    sha256: null,
    imageKey: null,
    diffKey: null,
    baselineId: null,
    changed: false,
    confirmed: false,
    diffPixels: 0,
    diffRatio: 0,
    regions: [],
    ignoredBoxes: [],
    truncated: false,
    error: { code: 'render_failed', message: 'seeded' },
    textKey: null,
    textChanges: [],
    textChangesTotal: 0,
    conditions: [],
    conditionErrors: [],
    conditionsMet: null,
    content: null,
    product: null,
  });
  return id;
}
