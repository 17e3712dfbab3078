// Jobs and webhooks survive the death of whatever was working on them (issue #4, "Leases" and
// "Crash safety"): a job left `running` by a dead worker is taken up again once its lease runs out,
// while a live worker's heartbeat keeps its job; maxAttempts ends a job that keeps losing its worker,
// with a signed job.failed; a browser killed mid-job costs a retry, not the job; a graceful stop hands
// unfinished jobs back uncounted; and a `kill -9` of the whole service with 50 jobs queued, running and
// webhooks pending loses nothing on restart — one result per job, every webhook delivered with one id.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, killHard, startCli, type CliService } from '../helpers/durability-cli.js';
import { startServiceOn, type DurableService } from '../helpers/durability-service.js';
import { parsePdf } from '../helpers/pdf.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { processGroup } from '../helpers/processes.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, verifyHit, type Hit, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/until.js';

interface JobJson {
  id: string;
  status: string;
  attempts: number;
  error?: { code: string; message: string };
  result?: { url: string; bytes: number };
}

type Caller = Pick<TestService, 'call'>;

async function getJob(svc: Caller, key: string, id: string): Promise<JobJson> {
  const res = await svc.call('GET', `/api/jobs/${id}`, key);
  if (res.status !== 200) throw new Error(`GET /api/jobs/${id} → ${res.status}`);
  return (await res.json()) as JobJson;
}

async function waitForJob(
  svc: Caller,
  key: string,
  id: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<JobJson> {
  let last: JobJson | undefined;
  return until(
    () => `job ${id} to be ${statuses.join(' or ')}; still ${last?.status} (attempts ${last?.attempts})`,
    async () => {
      last = await getJob(svc, key, id);
      return statuses.includes(last.status) && last;
    },
    timeoutMs,
    100,
  );
}

async function submit(svc: Caller, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await svc.call('POST', '/api/pdf', key, { ...body, async: true });
  if (res.status !== 202) throw new Error(`async submit → ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function pdfTextOf(svc: Caller, key: string, id: string): Promise<string> {
  const res = await svc.call('GET', `/api/jobs/${id}/result`, key);
  expect(res.status).toBe(200);
  return (await parsePdf(await bytesOf(res))).text;
}

/** The files the result store holds for one job (a try stores under `<jobId>-<attempt>`). */
function resultFilesOf(dataDir: string, jobId: string): string[] {
  return readdirSync(join(dataDir, 'results'))
    .filter((f) => f.startsWith(jobId))
    .sort();
}

/** The hits that speak of `jobId`, each verified with the reference implementation (throws if one is not). */
function hitsFor(hits: Hit[], secret: string, jobId: string): { hit: Hit; event: ReturnType<typeof verifyHit> }[] {
  return hits.map((hit) => ({ hit, event: verifyHit(secret, hit) })).filter(({ event }) => event.data.jobId === jobId);
}

/**
 * The job's webhook deliveries once none is pending (at least one). The receiver records a hit before the
 * sender has read its 204 and marked the row, so this is also when every hit has arrived.
 */
async function sentDeliveriesOf(svc: TestService, jobId: string): Promise<{ type: string; status: string }[]> {
  const rowsOf = () =>
    svc.db.prepare('SELECT event_type AS type, status FROM webhook_deliveries WHERE job_id = ?').all(jobId) as {
      type: string;
      status: string;
    }[];
  return until(
    `the webhook deliveries of ${jobId} to be sent`,
    () => {
      const rows = rowsOf();
      return rows.length > 0 && rows.every((r) => r.status !== 'pending') && rows;
    },
    10_000,
  );
}

/** A job row as a worker that claimed it and then died leaves it behind. */
function insertOrphan(
  db: Database.Database,
  row: {
    id: string;
    keyId: string;
    request: string;
    baseUrl: string;
    attempts: number;
    leaseExpiresAt: Date;
    webhookUrl?: string;
    error?: { code: string; message: string };
  },
): void {
  const now = new Date().toISOString();
  db.prepare(
    `INSERT INTO jobs (id, key_id, kind, status, request, base_url, webhook_url, attempts, lease_owner, lease_expires_at,
      error_code, error_message, created_at, started_at)
    VALUES (@id, @keyId, 'pdf', 'running', @request, @baseUrl, @webhookUrl, @attempts, 'worker_dead', @leaseExpiresAt,
      @errorCode, @errorMessage, @now, @now)`,
  ).run({
    ...row,
    webhookUrl: row.webhookUrl ?? null,
    leaseExpiresAt: row.leaseExpiresAt.toISOString(),
    errorCode: row.error?.code ?? null,
    errorMessage: row.error?.message ?? null,
    now,
  });
}

const newJobId = () => `job_${randomBytes(10).toString('hex')}`;

describe('leases, maxAttempts and browser crashes (one service, leaseMs 2000)', () => {
  let svc: TestService;
  let hooks: WebhookReceiver;
  let fixture: FixtureServer;
  let key: { id: string; key: string; webhookSecret: string };
  /** The `request` column of a real async PDF job: what the route stores after validation. */
  let template: Record<string, unknown>;

  beforeAll(async () => {
    [svc, hooks, fixture] = await Promise.all([
      startTestService({
        // A lease of 2 s is renewed every 667 ms: a stall of the loaded test process shorter than 1.3 s never
        // lets the worker take its own job over. The generous answer timeout keeps a stall from causing a retry.
        jobs: { leaseMs: 2000, pollIntervalMs: 100 },
        webhooks: { retryScheduleMs: [200, 400], timeoutMs: 10_000 },
        rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll jobs often
      }),
      startWebhookReceiver(),
      startFixtureServer(),
    ]);
    key = svc.createKey('durability');
    // Read while the job is still unfinished: a finished job keeps only filename and format of its
    // request. The slow page keeps it unfinished; it is canceled once read.
    const id = await submit(svc, key.key, { html: '<p>template</p>', delay: 5000 });
    const row = svc.db.prepare('SELECT request FROM jobs WHERE id = ?').get(id) as { request: string };
    template = { ...(JSON.parse(row.request) as Record<string, unknown>), delay: 0 };
    expect(template).toMatchObject({ html: '<p>template</p>', timeout: expect.any(Number) as unknown });
    expect((await svc.call('DELETE', `/api/jobs/${id}`, key.key)).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), hooks?.close(), fixture?.close()]);
  });

  const requestWith = (marker: string) => JSON.stringify({ ...template, html: `<h1>${marker}</h1>` });

  it('a running job whose worker died is claimed again once its lease runs out, and succeeds on the second try with one result file', async () => {
    const id = newJobId();
    const marker = `ORPHAN-${id}`;
    const leaseExpiresAt = new Date(Date.now() + 1000);
    insertOrphan(svc.db, {
      id,
      keyId: key.id,
      request: requestWith(marker),
      baseUrl: svc.url,
      attempts: 1,
      leaseExpiresAt,
    });
    // What the dead worker managed to store before it died, without recording it: not a result.
    writeFileSync(join(svc.dataDir, 'results', `${id}-1`), 'half of a dead try');

    // While the dead worker's lease still holds, the live worker leaves the job alone.
    const early = svc.db.prepare('SELECT status, lease_owner AS owner, attempts FROM jobs WHERE id = ?').get(id);
    if (Date.now() < leaseExpiresAt.getTime() - 100)
      expect(early).toEqual({ status: 'running', owner: 'worker_dead', attempts: 1 });

    const done = await waitForJob(svc, key.key, id, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(await pdfTextOf(svc, key.key, id)).toContain(marker);
    // Exactly one stored result, the second try's; the dead try's file is gone.
    expect(resultFilesOf(svc.dataDir, id)).toEqual([`${id}-2`]);
    expect(svc.db.prepare('SELECT result_key AS k, lease_owner AS owner FROM jobs WHERE id = ?').get(id)).toEqual({
      k: `${id}-2`,
      owner: null,
    });
  });

  // A try killed between writeFile and rename (storage/file-store.ts put) leaves `<key>.partial`; removing
  // an earlier try's key must take its half file too, or it stays in results/ for ever.
  it('a half-written file a dead try left behind (.partial) is removed when the job is taken up again', async () => {
    const id = newJobId();
    insertOrphan(svc.db, {
      id,
      keyId: key.id,
      request: requestWith(`PARTIAL-${id}`),
      baseUrl: svc.url,
      attempts: 1,
      leaseExpiresAt: new Date(Date.now() - 1000),
    });
    writeFileSync(join(svc.dataDir, 'results', `${id}-1.partial`), 'killed mid-write');
    expect(await waitForJob(svc, key.key, id, ['succeeded', 'failed'])).toMatchObject({
      status: 'succeeded',
      attempts: 2,
    });
    expect(resultFilesOf(svc.dataDir, id)).toEqual([`${id}-2`]);
  });

  it('a job rendering for longer than its lease is not taken over while its worker renews the lease', async () => {
    const marker = `HEARTBEAT-${randomBytes(4).toString('hex')}`;
    const id = await submit(svc, key.key, { html: `<h1>${marker}</h1>`, delay: 6000, webhookUrl: hooks.url });
    await waitForJob(svc, key.key, id, ['running', 'succeeded', 'failed']);
    // The lease moves forward while the render runs (three times the lease in all).
    const leaseOf = () =>
      (svc.db.prepare('SELECT lease_expires_at AS at FROM jobs WHERE id = ?').get(id) as { at: string | null }).at;
    const first = leaseOf();
    await until(
      'the lease to move forward',
      () => {
        const now = leaseOf();
        return now !== null && first !== null && now > first;
      },
      5000,
    );

    const done = await waitForJob(svc, key.key, id, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await pdfTextOf(svc, key.key, id)).toContain(marker);
    expect(resultFilesOf(svc.dataDir, id)).toEqual([`${id}-1`]);
    // The outbox records every event in the job's own transaction: once its rows are all sent, the hits
    // the receiver has are all there will be (a second event would be a second row).
    expect(await sentDeliveriesOf(svc, id)).toEqual([{ type: 'job.succeeded', status: 'succeeded' }]);
    const hits = hitsFor(hooks.hits, key.webhookSecret, id);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.event).toMatchObject({ type: 'job.succeeded', data: { jobId: id, attempts: 1 } });
  });

  it('a job whose lease ran out on its last try (maxAttempts) fails with the error recorded, and a signed job.failed is sent', async () => {
    // One with no error recorded (its workers all died silently), one whose earlier try left an error:
    // "after jobs.maxAttempts it fails with the last error".
    const silent = newJobId();
    const withError = newJobId();
    const lastError = { code: 'unavailable', message: 'the browser stopped during the render; try again' };
    const expired = new Date(Date.now() - 1000);
    insertOrphan(svc.db, {
      id: silent,
      keyId: key.id,
      request: requestWith('NEVER-1'),
      baseUrl: svc.url,
      attempts: 3,
      leaseExpiresAt: expired,
      webhookUrl: hooks.url,
    });
    insertOrphan(svc.db, {
      id: withError,
      keyId: key.id,
      request: requestWith('NEVER-2'),
      baseUrl: svc.url,
      attempts: 3,
      leaseExpiresAt: expired,
      webhookUrl: hooks.url,
      error: lastError,
    });

    const failedSilent = await waitForJob(svc, key.key, silent, ['succeeded', 'failed']);
    expect(failedSilent).toMatchObject({ status: 'failed', attempts: 3 });
    expect(failedSilent.error?.code).toBe('internal');
    expect(failedSilent.error?.message.length).toBeGreaterThan(0);
    const failedWithError = await waitForJob(svc, key.key, withError, ['succeeded', 'failed']);
    expect(failedWithError).toMatchObject({ status: 'failed', attempts: 3, error: lastError });
    // Not rendered a fourth time.
    expect(resultFilesOf(svc.dataDir, silent)).toEqual([]);
    expect(resultFilesOf(svc.dataDir, withError)).toEqual([]);

    for (const [id, job] of [
      [silent, failedSilent],
      [withError, failedWithError],
    ] as const) {
      // The receiver records the hit before the sender has read its 204 and marked the row: wait for the row.
      expect(await sentDeliveriesOf(svc, id)).toEqual([{ type: 'job.failed', status: 'succeeded' }]);
      const [first] = hitsFor(hooks.hits, key.webhookSecret, id);
      expect(first!.event).toMatchObject({
        type: 'job.failed',
        data: { jobId: id, status: 'failed', attempts: 3, error: job.error },
      });
    }
  });

  it('Chromium killed while a job renders: the job is retried on a new browser and succeeds; one webhook', async () => {
    const marker = `BROWSER-CRASH-${randomBytes(4).toString('hex')}`;
    const oldPid = svc.browsers.stats().pid!;
    expect(oldPid).toBeGreaterThan(0);
    const id = await submit(svc, key.key, {
      html: `<h1>${marker}</h1><img src="${fixture.url}/img/dot.png?${marker}">`,
      delay: 4000,
      webhookUrl: hooks.url,
    });
    // The page asked for its image: it is loaded in the browser and inside its 4 s delay.
    await until('the page to load in the browser', () => fixture.requests.some((r) => r.path.endsWith(marker)));
    expect((await getJob(svc, key.key, id)).status).toBe('running');
    process.kill(oldPid, 'SIGKILL');

    const done = await waitForJob(svc, key.key, id, ['succeeded', 'failed'], 40_000);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(svc.browsers.stats().pid).not.toBe(oldPid);
    expect(await pdfTextOf(svc, key.key, id)).toContain(marker);
    expect(resultFilesOf(svc.dataDir, id)).toEqual([`${id}-2`]);

    expect(await sentDeliveriesOf(svc, id)).toEqual([{ type: 'job.succeeded', status: 'succeeded' }]);
    const hits = hitsFor(hooks.hits, key.webhookSecret, id);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.event).toMatchObject({ type: 'job.succeeded', data: { jobId: id, attempts: 2 } });
    expect(svc.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE job_id = ?').get(id)).toEqual({ n: 1 });
    await until('the killed browser to be gone', () => processGroup(oldPid).length === 0, 5000);
  });
});

describe('graceful stop hands unfinished jobs back', () => {
  let dataDir: string;
  const services: DurableService[] = [];
  let fixture: FixtureServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-durability-'));
    fixture = await startFixtureServer();
  });
  afterAll(async () => {
    for (const s of services) await s.stop().catch(() => undefined);
    await fixture?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('jobs interrupted by a stop go back to queued with the try not counted, and a new service on the same data finishes them', async () => {
    const options = { shutdownGraceMs: 500, render: { concurrency: 2 }, jobs: { leaseMs: 5000, pollIntervalMs: 100 } };
    const first = await startServiceOn(dataDir, options);
    services.push(first);
    const key = first.createKey('graceful');
    const markers = [0, 1, 2].map((i) => `GRACEFUL-${i}-${randomBytes(4).toString('hex')}`);
    const ids: string[] = [];
    for (const m of markers)
      ids.push(
        await submit(first, key.key, { html: `<h1>${m}</h1><img src="${fixture.url}/img/dot.png?${m}">`, delay: 2500 }),
      );
    // Two render (concurrency 2), one waits: the stop comes while two pages are loaded and in their delay.
    const running = () =>
      (first.db.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE status = 'running'`).get() as { n: number }).n;
    const loaded = () => markers.filter((m) => fixture.requests.some((r) => r.path.endsWith(m))).length;
    await until('two jobs rendering, their pages loaded', () => running() === 2 && loaded() === 2, 10_000);
    await first.stop();

    const db = new Database(join(dataDir, 'pagewatch.db'), { readonly: true });
    try {
      const rows = db
        .prepare('SELECT id, status, attempts, lease_owner AS owner FROM jobs ORDER BY created_at, id')
        .all();
      expect(rows).toEqual(ids.map((id) => ({ id, status: 'queued', attempts: 0, owner: null })));
    } finally {
      db.close();
    }
    expect(readdirSync(join(dataDir, 'results'))).toEqual([]);

    const second = await startServiceOn(dataDir, options);
    services.push(second);
    for (const [i, id] of ids.entries()) {
      expect(await waitForJob(second, key.key, id, ['succeeded', 'failed'])).toMatchObject({
        status: 'succeeded',
        attempts: 1,
      });
      expect(await pdfTextOf(second, key.key, id)).toContain(markers[i]);
    }
    expect(readdirSync(join(dataDir, 'results')).sort()).toEqual(ids.map((id) => `${id}-1`).sort());
  });
});

describe('kill -9 with 50 jobs in flight', () => {
  const JOBS = 50;
  let dataDir: string | undefined;
  let hooks: WebhookReceiver | undefined;
  const children: CliService[] = [];
  afterEach(async () => {
    // Whatever happened: no service and no Chromium outlives the test.
    for (const c of children.splice(0)) await killHard(c);
    await hooks?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a restart completes every job with exactly one result and delivers every webhook under one id per event', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-crash-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PAGEWATCH_PORT: '0',
      PAGEWATCH_HOST: '127.0.0.1',
      PAGEWATCH_DATA_DIR: dataDir,
      PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]',
      PAGEWATCH_JOBS_LEASE_MS: '2000',
      PAGEWATCH_JOBS_POLL_INTERVAL_MS: '200',
      PAGEWATCH_WEBHOOKS_RETRY_SCHEDULE_MS: '[500,1000,2000]',
      // An attempt in flight at the kill is retried when its lease (timeout + 10 s) runs out: keep it short.
      PAGEWATCH_WEBHOOKS_TIMEOUT_MS: '1000',
      PAGEWATCH_RATE_LIMIT_PER_KEY_PER_MINUTE: '100000',
    };
    const key = await createKeyWithCli(env, 'crash');

    // A third of the events are refused twice before they are accepted (so retries are pending at any
    // moment); another third have their first attempt held for 800 ms (so attempts are in flight).
    const answered: (number | 'held')[] = [];
    const kindOf = new Map<string, 'refused' | 'held' | 'plain'>();
    const hitsOf = new Map<string, number>();
    const holds = new Map<number, string>(); // when each held attempt arrived → its webhook-id
    // Set at the kill point: from then on no held attempt is answered, so each one open then was surely
    // cut off by the kill (however long the kill itself takes on a loaded machine).
    let killing = false;
    hooks = await startWebhookReceiver((res, hit, index) => {
      const id = hit.headers['webhook-id'] ?? '';
      if (!kindOf.has(id)) kindOf.set(id, (['refused', 'held', 'plain'] as const)[kindOf.size % 3]!);
      const n = (hitsOf.get(id) ?? 0) + 1;
      hitsOf.set(id, n);
      if (kindOf.get(id) === 'held' && n === 1) {
        answered[index] = 'held';
        const at = Date.now();
        holds.set(at, id);
        setTimeout(() => {
          if (killing) return void res.destroy();
          holds.delete(at);
          // Only an answer that reached a live sender counts as accepted.
          if (!res.socket?.destroyed) answered[index] = 204;
          res.writeHead(204).end();
        }, 800);
        return;
      }
      const status = kindOf.get(id) === 'refused' && n <= 2 ? 500 : 204;
      answered[index] = status;
      res.writeHead(status).end();
    });

    const first = await startCli(env);
    children.push(first);
    const api: Caller = {
      call: (method, path, k, body) =>
        fetch(`${first.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${k}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
    };
    const markers = Array.from(
      { length: JOBS },
      (_, i) => `CRASH-${String(i).padStart(2, '0')}-${randomBytes(4).toString('hex')}`,
    );
    const ids = await Promise.all(
      markers.map((m) => submit(api, key.key, { html: `<h1>${m}</h1>`, delay: 150, webhookUrl: hooks!.url })),
    );
    expect(new Set(ids).size).toBe(JOBS);
    const markerOf = new Map(ids.map((id, i) => [id, markers[i]!]));

    // Watch the child's database (WAL: a reader beside its writer) and kill it mid-work: some jobs done,
    // many still waiting, and some webhooks waiting for a retry that is not about to fire.
    const db = new Database(join(dataDir, 'pagewatch.db'));
    try {
      const counts = () => {
        const byStatus = Object.fromEntries(
          (
            db.prepare('SELECT status, COUNT(*) AS n FROM jobs GROUP BY status').all() as {
              status: string;
              n: number;
            }[]
          ).map((r) => [r.status, r.n]),
        ) as Record<string, number>;
        const retrying = (
          db
            .prepare(
              `SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND attempts >= 1
          AND next_attempt_at > ?`,
            )
            .get(new Date(Date.now() + 300).toISOString()) as { n: number }
        ).n;
        return {
          succeeded: byStatus.succeeded ?? 0,
          queued: byStatus.queued ?? 0,
          running: byStatus.running ?? 0,
          retrying,
        };
      };
      // An attempt that will stay unanswered for a while yet (not one about to be answered).
      const holdingLong = () => [...holds.keys()].some((at) => Date.now() - at < 400);
      await until(
        () => `the kill point; reached ${JSON.stringify({ ...counts(), holding: holds.size })}`,
        () => {
          const c = counts();
          killing = c.succeeded >= 5 && c.queued >= 10 && c.retrying >= 1 && holdingLong();
          return killing;
        },
        60_000,
      );
      const heldAtKill = [...holds.values()];
      first.child.kill('SIGKILL');
      expect(await first.exit).toBe('SIGKILL');
      // The killed service's Chromium is killed too (it would otherwise be orphaned), and is gone.
      expect(await killHard(first)).toBe(true);

      // The state the crash left behind.
      const atKill = new Map(
        (
          db
            .prepare('SELECT id, status, attempts, result_key AS resultKey, finished_at AS finishedAt FROM jobs')
            .all() as {
            id: string;
            status: string;
            attempts: number;
            resultKey: string | null;
            finishedAt: string | null;
          }[]
        ).map((r) => [r.id, r]),
      );
      const pendingAtKill = (
        db.prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'`).get() as { n: number }
      ).n;
      const statuses = [...atKill.values()].map((r) => r.status);
      expect(statuses.filter((s) => s === 'queued').length).toBeGreaterThanOrEqual(1);
      expect(statuses.filter((s) => s === 'succeeded').length).toBeGreaterThanOrEqual(5);
      expect(pendingAtKill).toBeGreaterThanOrEqual(1);
      const hitsBeforeRestart = hooks.hits.length;
      expect(heldAtKill.length).toBeGreaterThanOrEqual(1);

      // Same data directory, same port (so the result URLs recorded in jobs and webhooks stay valid).
      const second = await startCli({ ...env, PAGEWATCH_PORT: String(first.port) });
      children.push(second);
      await until(
        () => `every job and delivery finished; ${JSON.stringify(counts())}; stderr: ${second.stderrTail()}`,
        () => {
          const row = db
            .prepare(
              `SELECT
            (SELECT COUNT(*) FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled')) AS jobs,
            (SELECT COUNT(*) FROM webhook_deliveries WHERE status <> 'pending') AS deliveries`,
            )
            .get() as { jobs: number; deliveries: number };
          return row.jobs === JOBS && row.deliveries === JOBS;
        },
        90_000,
        200,
      );
      expect(hooks.hits.length).toBeGreaterThan(hitsBeforeRestart);

      // Every job succeeded with its own content; jobs that finished before the kill were not done again;
      // the ones running at the kill took a second try, the queued ones one.
      for (const id of ids) {
        const job = await getJob(api, key.key, id);
        const before = atKill.get(id)!;
        expect(job.status, id).toBe('succeeded');
        expect(job.attempts, `${id} was ${before.status} at the kill`).toBe(before.status === 'running' ? 2 : 1);
        const row = db
          .prepare('SELECT result_key AS resultKey, finished_at AS finishedAt FROM jobs WHERE id = ?')
          .get(id) as { resultKey: string; finishedAt: string };
        expect(row.resultKey).toBe(`${id}-${job.attempts}`);
        if (before.status === 'succeeded')
          expect(row).toEqual({ resultKey: before.resultKey, finishedAt: before.finishedAt });
        const text = await pdfTextOf(api, key.key, id);
        expect(text).toContain(markerOf.get(id));
        expect(text.match(/CRASH-\d\d-[0-9a-f]{8}/g)).toEqual([markerOf.get(id)]);
      }

      // Exactly one stored file per job — the one its row names — and no half-written leftovers.
      const files = readdirSync(join(dataDir, 'results')).sort();
      const resultKeys = (db.prepare('SELECT result_key AS k FROM jobs').all() as { k: string }[])
        .map((r) => r.k)
        .sort();
      expect(files).toHaveLength(JOBS);
      expect(files).toEqual(resultKeys);

      // The outbox: one event per job, delivered.
      const deliveries = db
        .prepare(
          'SELECT job_id AS jobId, message_id AS messageId, event_type AS type, status, attempts FROM webhook_deliveries',
        )
        .all() as { jobId: string; messageId: string; type: string; status: string; attempts: number }[];
      expect(deliveries).toHaveLength(JOBS);
      expect(new Set(deliveries.map((d) => d.jobId))).toEqual(new Set(ids));
      for (const d of deliveries) expect(d, d.jobId).toMatchObject({ type: 'job.succeeded', status: 'succeeded' });
      // The refusals really happened: some events needed retries.
      expect(deliveries.some((d) => d.attempts >= 3)).toBe(true);

      // The receiver: every hit validly signed; for every job a job.succeeded it accepted; all hits of one
      // job's event carry that event's one webhook-id (repeats are at-least-once, never a new id).
      const verified = hooks.hits.map((hit, index) => ({ hit, index, event: verifyHit(key.webhookSecret, hit) }));
      const messageIdOf = new Map(deliveries.map((d) => [d.jobId, d.messageId]));
      for (const id of ids) {
        const mine = verified.filter(({ event }) => event.data.jobId === id);
        expect(mine.length, id).toBeGreaterThanOrEqual(1);
        for (const { event } of mine)
          expect(event).toMatchObject({ type: 'job.succeeded', data: { jobId: id, status: 'succeeded' } });
        expect(new Set(mine.map(({ hit }) => hit.headers['webhook-id']))).toEqual(new Set([messageIdOf.get(id)]));
        expect(
          mine.some(({ index }) => answered[index] === 204),
          `${id}: no accepted delivery`,
        ).toBe(true);
      }
      // An attempt cut off by the kill is sent again after the restart, under the same id.
      for (const messageId of heldAtKill) {
        const again = hooks.hits.slice(hitsBeforeRestart).filter((h) => h.headers['webhook-id'] === messageId);
        expect(again.length, `${messageId} in flight at the kill was not sent again`).toBeGreaterThanOrEqual(1);
      }
    } finally {
      db.close();
    }
  }, 150_000);
});
