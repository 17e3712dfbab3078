// The webhook machinery of issue #4 end to end over HTTP, with real async jobs rendered by the real
// browser and real receivers on 127.0.0.1: Standard Webhooks signatures (checked by the reference
// `standardwebhooks` package, which also rejects tampered, wrongly keyed and stale hits), retries on a
// short schedule with one stable webhook-id, 410 stopping, timeouts, unfollowed redirects, an
// exhausted schedule, redelivery, the delivery log's filters/paging/validation/ownership, the egress
// policy at send time, and secret rotation through the built CLI against the running service's database.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePdf } from '../helpers/pdf.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import {
  startWebhookReceiver,
  verifyHit,
  type Answer,
  type Hit,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';
import { sleep, until } from '../helpers/until.js';

const CLI = resolve(import.meta.dirname, '../../dist/src/cli.js');
const run = promisify(execFile);

// Three retries ~300 ms apart (±20 % jitter) keep every schedule short. The answer timeout is generous, so a
// loaded machine's stall never turns a prompt answer into a timeout and an extra POST; only the test of a
// receiver that never answers uses a short one, on its own service.
const RETRY_SCHEDULE_MS = [300, 300, 300];
const SETTINGS = { webhooks: { retryScheduleMs: RETRY_SCHEDULE_MS, timeoutMs: 10_000 }, jobs: { pollIntervalMs: 100 } };
const SHORT_TIMEOUT_MS = 1000;
/** Longer than the whole retry schedule with its largest jitter: after this, no more attempts can come. */
const BEYOND_SCHEDULE_MS = 2 * RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0) * 1.2;

interface Delivery {
  id: string;
  eventType: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  webhookId: string;
  jobId?: string;
  createdAt: string;
}
interface DeliveryDetail extends Delivery {
  history: { attempt: number; at: string; durationMs: number; responseStatus: number | null; error: string | null }[];
}
interface Key {
  id: string;
  key: string;
  webhookSecret: string;
}

const receivers: WebhookReceiver[] = [];
async function receiver(answer?: Answer): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(answer);
  receivers.push(r);
  return r;
}
const status =
  (code: number, headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(code, headers).end();
  };
const sequence =
  (codes: number[]): Answer =>
  (res, _hit, i) => {
    res.writeHead(codes[Math.min(i, codes.length - 1)]!).end();
  };

let svc: TestService;
let owner: Key;

beforeAll(async () => {
  svc = await startTestService(SETTINGS);
  owner = svc.createKey('webhook-owner');
});
afterAll(async () => {
  await Promise.all([svc?.close(), ...receivers.map((r) => r.close())]);
});

/** A small async render whose outcome is reported to `webhookUrl`; returns the job id. */
async function submitJob(
  service: TestService,
  key: Key,
  webhookUrl: string,
  kind: 'pdf' | 'image' = 'image',
  marker = 'WEBHOOK-JOB',
): Promise<string> {
  const body =
    kind === 'pdf'
      ? { html: `<h1>${marker}</h1>`, async: true, webhookUrl }
      : {
          html: `<body style="margin:0;background:#08f">${marker}</body>`,
          viewport: { width: 64, height: 64 },
          async: true,
          webhookUrl,
        };
  const res = await service.call('POST', `/api/${kind}`, key.key, body);
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function listDeliveries(
  key: Key,
  query = '',
  service = svc,
): Promise<{ items: Delivery[]; nextCursor: string | null }> {
  const res = await service.call('GET', `/api/webhook-deliveries${query}`, key.key);
  expect(res.status).toBe(200);
  return (await res.json()) as { items: Delivery[]; nextCursor: string | null };
}

async function detail(key: Key, id: string, service = svc): Promise<DeliveryDetail> {
  const res = await service.call('GET', `/api/webhook-deliveries/${id}`, key.key);
  expect(res.status).toBe(200);
  return (await res.json()) as DeliveryDetail;
}

/** The job's delivery once it has reached `wanted` (it exists only after the job finished). */
function deliveryOfJob(
  key: Key,
  jobId: string,
  wanted: Delivery['status'],
  timeoutMs?: number,
  service = svc,
): Promise<Delivery> {
  return until(
    `the delivery of ${jobId} to be ${wanted}`,
    async () => {
      const [d] = (await listDeliveries(key, `?jobId=${jobId}`, service)).items;
      return d?.status === wanted ? d : undefined;
    },
    timeoutMs,
  );
}

function deliveryById(
  key: Key,
  id: string,
  wanted: (d: DeliveryDetail) => boolean,
  service = svc,
): Promise<DeliveryDetail> {
  return until(`delivery ${id}`, async () => {
    const d = await detail(key, id, service);
    return wanted(d) ? d : undefined;
  });
}

/** A hit carrying only one of the signatures of its `webhook-signature` header. */
function withOnlySignature(hit: Hit, signature: string): Hit {
  return { ...hit, headers: { ...hit.headers, 'webhook-signature': signature } };
}

/** Every string anywhere in a JSON value. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

describe('signatures and the event body', () => {
  let hit: Hit;
  let jobId: string;

  beforeAll(async () => {
    const hooks = await receiver();
    jobId = await submitJob(svc, owner, hooks.url, 'pdf', 'SIGNED-PDF-MARKER');
    hit = (await hooks.waitForHits(1))[0]!;
  });

  it('the job.succeeded webhook verifies with the key secret in the reference implementation', () => {
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['webhook-id']).toMatch(/^msg_/);
    expect(hit.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(hit.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    const event = verifyHit(owner.webhookSecret, hit);
    expect(event).toEqual(JSON.parse(hit.body));
    expect(event.type).toBe('job.succeeded');
  });

  it('the body is {type, timestamp, data} with thin data: ids, status and an absolute result URL, never the bytes', async () => {
    const body = JSON.parse(hit.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(body.data).toMatchObject({ jobId, status: 'succeeded', kind: 'pdf' });
    const result = body.data.result as { url: string; contentType: string; bytes: number };
    expect(result.url).toBe(`${svc.url}/api/jobs/${jobId}/result`);
    expect(new URL(result.url).origin).toBe(svc.url); // absolute, not a path
    expect(result.contentType).toBe('application/pdf');
    // No content rides along: no long strings, nothing that looks like base64 PDF/PNG bytes.
    expect(hit.body.length).toBeLessThan(2048);
    for (const s of stringsIn(body)) {
      expect(s.length).toBeLessThan(300);
      expect(s).not.toMatch(/^(JVBER|iVBOR)/);
    }
    expect(Object.keys(body.data)).not.toContain('data');
    // The URL in the event is the working result.
    const file = await svc.call('GET', result.url.slice(svc.url.length), owner.key);
    expect(file.status).toBe(200);
    const bytes = await bytesOf(file);
    expect(bytes.length).toBe(result.bytes);
    expect((await parsePdf(bytes)).text).toContain('SIGNED-PDF-MARKER');
  });

  it('a tampered body is rejected', () => {
    const tampered = { ...hit, body: hit.body.replace(jobId, 'job_00000000000000000000') };
    expect(tampered.body).not.toBe(hit.body);
    expect(() => verifyHit(owner.webhookSecret, tampered)).toThrow(/No matching signature/);
  });

  it("a wrong secret is rejected (another key's)", () => {
    const other = svc.createKey('someone-else');
    expect(() => verifyHit(other.webhookSecret, hit)).toThrow(/No matching signature/);
  });

  it('a timestamp older than 5 minutes is rejected, even when correctly signed for that time', () => {
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    const stale = { ...hit, headers: { ...hit.headers, 'webhook-timestamp': String(old) } };
    expect(() => verifyHit(owner.webhookSecret, stale)).toThrow(/timestamp too old/);
    // Re-signed with the right secret for the old time: the age alone is enough to reject it.
    const resigned = new Webhook(owner.webhookSecret).sign(hit.headers['webhook-id']!, new Date(old * 1000), hit.body);
    expect(() =>
      verifyHit(owner.webhookSecret, { ...stale, headers: { ...stale.headers, 'webhook-signature': resigned } }),
    ).toThrow(/timestamp too old/);
  });
});

describe('retries', () => {
  it('500, 500, then 204: exactly 3 POSTs with one webhook-id, each validly signed; the log shows all three', async () => {
    const hooks = await receiver(sequence([500, 500, 204]));
    const jobId = await submitJob(svc, owner, hooks.url);
    const delivery = await deliveryOfJob(owner, jobId, 'succeeded');
    await sleep(BEYOND_SCHEDULE_MS); // nothing more may follow a success
    expect(hooks.hits).toHaveLength(3);

    // One event, one id, one body; each attempt signed with its own (non-decreasing) timestamp.
    const ids = new Set(hooks.hits.map((h) => h.headers['webhook-id']));
    expect([...ids]).toEqual([delivery.webhookId]);
    expect(new Set(hooks.hits.map((h) => h.body)).size).toBe(1);
    const stamps = hooks.hits.map((h) => Number(h.headers['webhook-timestamp']));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    for (const h of hooks.hits)
      expect(verifyHit(owner.webhookSecret, h)).toMatchObject({ type: 'job.succeeded', data: { jobId } });

    expect(delivery).toMatchObject({
      eventType: 'job.succeeded',
      url: hooks.url,
      status: 'succeeded',
      attempts: 3,
      lastResponseStatus: 204,
      nextAttemptAt: null,
      jobId,
    });
    const { history } = await detail(owner, delivery.id);
    expect(history.map((a) => [a.attempt, a.responseStatus])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
    ]);
    expect(history[0]!.error).toMatch(/500/);
    expect(history[2]!.error).toBeNull();
  });

  it('410 Gone: exactly one POST and no more, the delivery failed with 410', async () => {
    const hooks = await receiver(status(410));
    const jobId = await submitJob(svc, owner, hooks.url);
    const delivery = await deliveryOfJob(owner, jobId, 'failed');
    await sleep(BEYOND_SCHEDULE_MS);
    expect(hooks.hits).toHaveLength(1);
    expect(await detail(owner, delivery.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastResponseStatus: 410,
      nextAttemptAt: null,
      lastError: expect.stringMatching(/410/) as unknown,
      history: [{ attempt: 1, responseStatus: 410 }],
    });
  });

  it('3xx is a failure and is not followed: the redirect target receives nothing', async () => {
    const target = await receiver();
    const redirects = [301, 302, 307, 308];
    const hooks = await receiver((res, _hit, i) => {
      res.writeHead(redirects[i] ?? 302, { location: target.url }).end();
    });
    const jobId = await submitJob(svc, owner, hooks.url);
    const delivery = await deliveryOfJob(owner, jobId, 'failed');
    const { history } = await detail(owner, delivery.id);
    expect(history.map((a) => a.responseStatus)).toEqual(redirects);
    expect(delivery.lastResponseStatus).toBe(308);
    expect(target.hits).toHaveLength(0);
  });

  it('a receiver that always answers 500: retryScheduleMs.length + 1 attempts, then failed with no next attempt', async () => {
    const hooks = await receiver(status(500));
    const jobId = await submitJob(svc, owner, hooks.url);
    const delivery = await deliveryOfJob(owner, jobId, 'failed');
    expect(delivery).toMatchObject({
      attempts: RETRY_SCHEDULE_MS.length + 1,
      lastResponseStatus: 500,
      nextAttemptAt: null,
    });
    await sleep(BEYOND_SCHEDULE_MS);
    expect(hooks.hits).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
    expect((await detail(owner, delivery.id)).history.map((a) => a.responseStatus)).toEqual(
      RETRY_SCHEDULE_MS.map(() => 500).concat(500),
    );
    // The stored row agrees with the API.
    const row = svc.db
      .prepare('SELECT status, attempts, next_attempt_at AS next FROM webhook_deliveries WHERE id = ?')
      .get(delivery.id);
    expect(row).toEqual({ status: 'failed', attempts: RETRY_SCHEDULE_MS.length + 1, next: null });
  });
});

describe(`a receiver that never answers (webhooks.timeoutMs ${SHORT_TIMEOUT_MS})`, () => {
  let hasty: TestService;
  let key: Key;
  beforeAll(async () => {
    hasty = await startTestService({ ...SETTINGS, webhooks: { ...SETTINGS.webhooks, timeoutMs: SHORT_TIMEOUT_MS } });
    key = hasty.createKey('hasty-owner');
  });
  afterAll(async () => {
    await hasty?.close();
  });

  it('each attempt times out, is recorded and retried with the same id; failed after N+1', async () => {
    const hooks = await receiver(() => {
      /* hang: never answer */
    });
    const jobId = await submitJob(hasty, key, hooks.url);
    const delivery = await deliveryOfJob(key, jobId, 'failed', undefined, hasty);
    expect(delivery).toMatchObject({
      attempts: RETRY_SCHEDULE_MS.length + 1,
      lastResponseStatus: null,
      nextAttemptAt: null,
    });
    expect(delivery.lastError).toContain(`within ${SHORT_TIMEOUT_MS} ms`);
    expect(hooks.hits.length).toBeGreaterThanOrEqual(2);
    expect(hooks.hits).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
    expect(new Set(hooks.hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([delivery.webhookId]));
    const { history } = await detail(key, delivery.id, hasty);
    expect(history).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
    for (const a of history)
      expect(a).toMatchObject({
        responseStatus: null,
        error: expect.stringContaining(`no answer within ${SHORT_TIMEOUT_MS} ms`) as unknown,
      });
  });
});

describe('redeliver', () => {
  it('a failed delivery, redelivered: 202, one more POST with the same webhook-id, then succeeded; again once succeeded', async () => {
    const hooks = await receiver(status(410));
    const jobId = await submitJob(svc, owner, hooks.url);
    const failed = await deliveryOfJob(owner, jobId, 'failed');
    expect(hooks.hits).toHaveLength(1);

    hooks.answer = status(204);
    const res = await svc.call('POST', `/api/webhook-deliveries/${failed.id}/redeliver`, owner.key);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ id: failed.id, status: 'pending', webhookId: failed.webhookId });
    await hooks.waitForHits(2);
    const succeeded = await deliveryById(owner, failed.id, (d) => d.status === 'succeeded');
    expect(succeeded).toMatchObject({ attempts: 2, lastResponseStatus: 204, nextAttemptAt: null });
    expect(succeeded.history.map((a) => a.responseStatus)).toEqual([410, 204]);

    // A succeeded delivery can be sent again too.
    expect((await svc.call('POST', `/api/webhook-deliveries/${failed.id}/redeliver`, owner.key)).status).toBe(202);
    await hooks.waitForHits(3);
    expect(await deliveryById(owner, failed.id, (d) => d.attempts === 3)).toMatchObject({
      status: 'succeeded',
      attempts: 3,
    });
    await sleep(BEYOND_SCHEDULE_MS);
    expect(hooks.hits).toHaveLength(3);

    // Every send of the event — first, redelivered, redelivered again — carries the same id and a valid signature.
    expect(hooks.hits.map((h) => h.headers['webhook-id'])).toEqual([
      failed.webhookId,
      failed.webhookId,
      failed.webhookId,
    ]);
    for (const h of hooks.hits) verifyHit(owner.webhookSecret, h);
  });

  it('a redelivery that fails again gets the whole retry schedule again', async () => {
    const hooks = await receiver(status(410));
    const jobId = await submitJob(svc, owner, hooks.url);
    const failed = await deliveryOfJob(owner, jobId, 'failed');
    hooks.answer = status(503);
    expect((await svc.call('POST', `/api/webhook-deliveries/${failed.id}/redeliver`, owner.key)).status).toBe(202);
    const again = await deliveryById(owner, failed.id, (d) => d.status === 'failed' && d.attempts > 1);
    expect(again.attempts).toBe(1 + RETRY_SCHEDULE_MS.length + 1);
    expect(again.history.map((a) => a.responseStatus)).toEqual([410, ...RETRY_SCHEDULE_MS.map(() => 503), 503]);
    expect(new Set(hooks.hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([failed.webhookId]));
  });

  // The attempt in flight records its own outcome when it ends; the redelivery asked for meanwhile must
  // survive that (it once did not: the outcome overwrote the pending state, and no second POST followed).
  it('a redelivery asked for while an attempt is in flight is not lost: the receiver gets one more POST', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    // The first POST is answered only once the test has asked for the redelivery; later ones at once.
    const hooks = await receiver((res, _hit, i) => {
      if (i === 0) void held.then(() => res.writeHead(204).end());
      else res.writeHead(204).end();
    });
    const jobId = await submitJob(svc, owner, hooks.url);
    await hooks.waitForHits(1);
    const [inFlight] = (await listDeliveries(owner, `?jobId=${jobId}`)).items;
    expect(inFlight).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await svc.call('POST', `/api/webhook-deliveries/${inFlight!.id}/redeliver`, owner.key)).status).toBe(202);
    release();
    await hooks.waitForHits(2, 5000);
    expect(hooks.hits.map((h) => h.headers['webhook-id'])).toEqual([inFlight!.webhookId, inFlight!.webhookId]);
    const done = await deliveryById(owner, inFlight!.id, (d) => d.attempts === 2);
    // Both answered 204 (the held one well within the answer timeout, so no retry explains the second POST).
    expect(done.history.map((a) => a.responseStatus)).toEqual([204, 204]);
    expect(done.status).toBe('succeeded');
  });

  it("an unknown id or another key's delivery: 404", async () => {
    const [mine] = (await listDeliveries(owner, '?limit=1')).items;
    expect(mine).toBeDefined();
    const stranger = svc.createKey('stranger');
    const theirs = await svc.call('POST', `/api/webhook-deliveries/${mine!.id}/redeliver`, stranger.key);
    expect(theirs.status).toBe(404);
    expect((await errorOf(theirs)).code).toBe('not_found');
    const unknown = await svc.call('POST', '/api/webhook-deliveries/dlv_00000000000000000000/redeliver', owner.key);
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('not_found');
    // The stranger's attempt changed nothing.
    expect((await detail(owner, mine!.id)).attempts).toBe(mine!.attempts);
  });
});

describe('the delivery log', () => {
  let lister: Key;
  let okJobs: string[];
  let goneJob: string;
  let all: Delivery[];

  beforeAll(async () => {
    // A key of its own, so the counts below are exactly this key's four deliveries.
    lister = svc.createKey('lister');
    const ok = await receiver();
    const gone = await receiver(status(410)); // its own URL: a 410 stops every pending delivery to that URL
    okJobs = [];
    for (let i = 0; i < 3; i++) okJobs.push(await submitJob(svc, lister, ok.url));
    goneJob = await submitJob(svc, lister, gone.url);
    for (const id of okJobs) await deliveryOfJob(lister, id, 'succeeded');
    await deliveryOfJob(lister, goneJob, 'failed');
    all = (await listDeliveries(lister)).items;
  });

  it("lists this key's deliveries newest first", () => {
    expect(all).toHaveLength(4);
    expect(new Set(all.map((d) => d.jobId))).toEqual(new Set([...okJobs, goneJob]));
    const order = all.map((d) => `${d.createdAt} ${d.id}`);
    expect(order).toEqual([...order].sort().reverse());
  });

  it('filters by jobId and by status', async () => {
    const byJob = (await listDeliveries(lister, `?jobId=${okJobs[1]}`)).items;
    expect(byJob.map((d) => d.jobId)).toEqual([okJobs[1]]);
    const succeeded = (await listDeliveries(lister, '?status=succeeded')).items;
    expect(succeeded.map((d) => d.jobId).sort()).toEqual([...okJobs].sort());
    expect((await listDeliveries(lister, '?status=failed')).items.map((d) => d.jobId)).toEqual([goneJob]);
    expect((await listDeliveries(lister, '?status=pending')).items).toEqual([]);
    expect((await listDeliveries(lister, `?jobId=${goneJob}&status=succeeded`)).items).toEqual([]);
  });

  it('pages with limit and nextCursor, without repeats or gaps', async () => {
    const first = await listDeliveries(lister, '?limit=3');
    expect(first.items).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listDeliveries(lister, `?limit=3&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    expect([...first.items, ...second.items].map((d) => d.id)).toEqual(all.map((d) => d.id));
    const exact = await listDeliveries(lister, '?limit=4');
    expect(exact.items).toHaveLength(4);
    expect(exact.nextCursor).toBeNull();
  });

  it('bad status, limit=0 and limit=101 are 400 invalid_request naming the field; limit=100 is fine', async () => {
    for (const [query, field] of [
      ['?status=done', 'status'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
    ] as const) {
      const res = await svc.call('GET', `/api/webhook-deliveries${query}`, lister.key);
      expect(res.status, query).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe('invalid_request');
      expect(
        error.details?.map((d) => d.path),
        query,
      ).toContain(field);
    }
    expect((await listDeliveries(lister, '?limit=100')).items).toHaveLength(4);
  });

  it('another key sees none of them: an empty list, 404 for each id', async () => {
    const other = svc.createKey('other-lister');
    expect(await listDeliveries(other)).toEqual({ items: [], nextCursor: null });
    expect((await listDeliveries(other, `?jobId=${okJobs[0]}`)).items).toEqual([]);
    for (const d of all) {
      const res = await svc.call('GET', `/api/webhook-deliveries/${d.id}`, other.key);
      expect(res.status).toBe(404);
      expect((await errorOf(res)).code).toBe('not_found');
    }
  });
});

describe('the egress policy at send time (loopback refused, only "localhost" allowed by name)', () => {
  let strict: TestService;
  let key: Key;
  let hooks: WebhookReceiver;

  beforeAll(async () => {
    [strict, hooks] = await Promise.all([
      startTestService({ ...SETTINGS, egress: { allowPrivate: false, allowHosts: ['localhost'], denyHosts: [] } }),
      receiver(),
    ]);
    key = strict.createKey('strict');
  });
  afterAll(async () => {
    await strict?.close();
  });

  /** An outbox row as the queue would write it, due now (submit would refuse such a URL). */
  function insertDelivery(url: string): { id: string; messageId: string } {
    const id = `dlv_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const messageId = `msg_${randomUUID().replace(/-/g, '')}`;
    const now = new Date().toISOString();
    const payload = JSON.stringify({
      type: 'job.succeeded',
      timestamp: now,
      data: { jobId: 'job_inserted', status: 'succeeded' },
    });
    strict.db
      .prepare(
        `INSERT INTO webhook_deliveries (id, key_id, message_id, event_type, url, payload, status, next_attempt_at, created_at)
      VALUES (?, ?, ?, 'job.succeeded', ?, ?, 'pending', ?, ?)`,
      )
      .run(id, key.id, messageId, url, payload, now, now);
    strict.dispatcher.wake();
    return { id, messageId };
  }

  it('submit refuses a webhookUrl on 127.0.0.1: 400 invalid_request with a detail for webhookUrl, no job made', async () => {
    const res = await strict.call('POST', '/api/image', key.key, {
      html: '<p>x</p>',
      async: true,
      webhookUrl: hooks.url,
    });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([{ path: 'webhookUrl', message: 'not allowed by the egress policy' }]); // the address only in the log
    expect(((await (await strict.call('GET', '/api/jobs', key.key)).json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('a due delivery to 127.0.0.1 is not sent: failed at once, the error naming the egress policy', async () => {
    const refused = insertDelivery(hooks.url);
    const d = await deliveryById(key, refused.id, (x) => x.status !== 'pending', strict);
    expect(d).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastResponseStatus: null,
      nextAttemptAt: null,
      webhookId: refused.messageId,
    });
    expect(d.lastError).toMatch(/egress policy/);
    expect(JSON.stringify(d)).not.toMatch(/not a public address|resolves to/); // the policy's reason stays in the log
    expect(d.history).toEqual([
      expect.objectContaining({
        attempt: 1,
        responseStatus: null,
        error: expect.stringMatching(/egress policy/) as unknown,
      }) as unknown,
    ]);

    // Control: the same receiver, reached by the allowed name, gets its delivery — so only the policy
    // stood between the first one and the receiver. (localhost resolves to 127.0.0.1 here.)
    const allowed = insertDelivery(hooks.url.replace('127.0.0.1', 'localhost'));
    expect(await deliveryById(key, allowed.id, (x) => x.status !== 'pending', strict)).toMatchObject({
      status: 'succeeded',
      lastResponseStatus: 204,
    });
    expect(hooks.hits.map((h) => h.headers['webhook-id'])).toEqual([allowed.messageId]);
    expect(verifyHit(key.webhookSecret, hooks.hits[0]!).type).toBe('job.succeeded');
    const row = strict.db.prepare('SELECT status, attempts FROM webhook_deliveries WHERE id = ?').get(refused.id);
    expect(row).toEqual({ status: 'failed', attempts: 1 });
  });
});

describe('secret rotation through the CLI (pagewatch keys rotate-secret)', () => {
  const cli = (...args: string[]) =>
    run(process.execPath, [CLI, 'keys', ...args], {
      env: { ...process.env, PAGEWATCH_DATA_DIR: svc.dataDir, PAGEWATCH_LOG_LEVEL: 'silent' },
    });
  const secretFrom = (stdout: string) => {
    const match = /^webhook secret: (whsec_\S+)$/m.exec(stdout);
    if (!match) throw new Error(`no secret in the CLI output:\n${stdout}`);
    return match[1]!;
  };

  let rotator: Key;
  let hooks: WebhookReceiver;
  let rotated: string;

  beforeAll(async () => {
    rotator = svc.createKey('rotator');
    hooks = await receiver();
  });

  it('with a grace period, webhooks carry two signatures and verify with both the old and the new secret', async () => {
    const { stdout } = await cli('rotate-secret', rotator.id, '--grace-hours', '1');
    rotated = secretFrom(stdout);
    expect(rotated).not.toBe(rotator.webhookSecret);

    const jobId = await submitJob(svc, rotator, hooks.url);
    const [hit] = await hooks.waitForHits(1);
    const signatures = hit!.headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    for (const s of signatures) expect(s).toMatch(/^v1,/);
    expect(verifyHit(rotator.webhookSecret, hit!).data.jobId).toBe(jobId);
    expect(verifyHit(rotated, hit!).data.jobId).toBe(jobId);
    // One signature per secret (not two by the same one).
    const verifiedBy = signatures.map((s) =>
      [rotator.webhookSecret, rotated].filter((secret) => {
        try {
          verifyHit(secret, withOnlySignature(hit!, s));
          return true;
        } catch {
          return false;
        }
      }),
    );
    expect(verifiedBy.flat().sort()).toEqual([rotator.webhookSecret, rotated].sort());
  });

  it('with no grace, only the newest secret signs: the earlier ones are rejected', async () => {
    expect(rotated).toBeDefined(); // follows the rotation above
    const { stdout } = await cli('rotate-secret', rotator.id, '--grace-hours', '0');
    const newest = secretFrom(stdout);

    const before = hooks.hits.length;
    const jobId = await submitJob(svc, rotator, hooks.url);
    const hit = (await hooks.waitForHits(before + 1))[before]!;
    expect(hit.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyHit(newest, hit).data.jobId).toBe(jobId);
    expect(() => verifyHit(rotated, hit)).toThrow(/No matching signature/);
    expect(() => verifyHit(rotator.webhookSecret, hit)).toThrow(/No matching signature/);
  });

  it('an unknown key id exits non-zero', async () => {
    const failure = await cli('rotate-secret', 'key_doesnotexist', '--grace-hours', '1').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toMatchObject({ code: expect.any(Number) as unknown });
    expect((failure as { code: number }).code).not.toBe(0);
    expect((failure as { stderr: string }).stderr).toMatch(/no active key/);
  });
});

describe('webhooks.maxInFlight', () => {
  let small: TestService;
  beforeAll(async () => {
    small = await startTestService({
      ...SETTINGS,
      webhooks: { ...SETTINGS.webhooks, timeoutMs: 20_000, maxInFlight: 2 },
    });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('sends no more than maxInFlight at once while more are due, and delivers every event once they answer', async () => {
    const key = small.createKey('in-flight');
    const held: { end: () => void }[] = [];
    const hooks = await receiver((res) => {
      held.push({ end: () => res.writeHead(204).end() });
    });
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, i) => submitJob(small, key, hooks.url, 'image', `IN-FLIGHT-${i}`)),
    );
    const recorded = () =>
      (small.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE key_id = ?').get(key.id) as { n: number })
        .n;
    // All six events are due (every job has finished); two POSTs are open and held.
    await until('six events due and two POSTs open', () =>
      recorded() === 6 && hooks.hits.length >= 2 ? true : undefined,
    );
    await sleep(1000); // ten polls of the dispatcher: it would have sent more by now if the cap allowed
    expect(hooks.hits).toHaveLength(2);

    hooks.answer = (res) => {
      res.writeHead(204).end();
    };
    for (const h of held.splice(0)) h.end();
    const hits = await hooks.waitForHits(6, 30_000);
    const delivered = new Set(hits.map((h) => (verifyHit(key.webhookSecret, h).data as { jobId: string }).jobId));
    expect([...delivered].sort()).toEqual([...ids].sort());
  });
});
