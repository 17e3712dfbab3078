// The jobs HTTP API (issue #4) over the real stack with real Chromium: the rules of async submission,
// Idempotency-Key, cancel of queued and running jobs, ownership, listing and paging, results (headers,
// expiry and the sweeper), jobs.maxQueuedPerKey, and that synchronous renders are not starved by jobs.
//
// Render slots are kept busy with async jobs whose page never answers (the fixture's /hang route)
// and a large timeout: with render.concurrency 2 the worker holds at most 2 jobs, so any later job stays
// `queued` until the blockers are canceled — which is itself the "cancel a running job" path.
import { existsSync, readdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng } from '../helpers/png.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import type { JobView } from '../../src/jobs/view.js';
import { clockPast, until } from '../helpers/until.js';

type JobJson = JobView; // what the API sends
interface JobPage {
  items: JobJson[];
  nextCursor: string | null;
}

const FINISHED = ['succeeded', 'failed', 'canceled'];

let fixture: FixtureServer;
/** Responses of /hang requests, which never answer; `closed` says the browser gave up on them. */
const hangs: { res: ServerResponse; closed: boolean }[] = [];

beforeAll(async () => {
  fixture = await startFixtureServer();
  fixture.route('/hang', (_req, res) => {
    const entry = { res, closed: false };
    res.on('close', () => {
      entry.closed = true;
    });
    hangs.push(entry);
  });
});
afterAll(async () => {
  await fixture?.close();
});

/** Helpers bound to one service. */
function api(svc: TestService) {
  const submit = (
    key: IssuedKey,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
    kind: 'pdf' | 'image' = 'pdf',
  ) => svc.call('POST', `/api/${kind}`, key.key, { async: true, ...body }, headers);

  async function submitOk(
    key: IssuedKey,
    body: Record<string, unknown>,
    kind: 'pdf' | 'image' = 'pdf',
  ): Promise<JobJson> {
    const res = await submit(key, body, {}, kind);
    expect(res.status, await res.clone().text()).toBe(202);
    return (await res.json()) as JobJson;
  }

  async function getJob(key: IssuedKey, id: string): Promise<JobJson> {
    const res = await svc.call('GET', `/api/jobs/${id}`, key.key);
    expect(res.status).toBe(200);
    return (await res.json()) as JobJson;
  }

  const waitForStatus = (key: IssuedKey, id: string, statuses: string[], timeoutMs = 30_000) =>
    until(
      `job ${id} to be ${statuses.join('/')}`,
      async () => {
        const job = await getJob(key, id);
        return statuses.includes(job.status) ? job : undefined;
      },
      timeoutMs,
    );

  /**
   * Two async jobs whose page never answers, each holding a render slot (and the worker's whole
   * capacity) until canceled; resolves once Chromium is really waiting on both.
   */
  async function occupySlots(key: IssuedKey): Promise<JobJson[]> {
    const before = hangs.length;
    const blockers = [
      await submitOk(key, { url: `${fixture.url}/hang`, timeout: 120_000 }),
      await submitOk(key, { url: `${fixture.url}/hang`, timeout: 120_000 }),
    ];
    await until('both blockers to be rendering', () => hangs.length >= before + 2 && svc.limiter.activeCount === 2);
    for (const b of blockers) expect((await getJob(key, b.id)).status).toBe('running');
    return blockers;
  }

  async function freeSlots(key: IssuedKey, blockers: JobJson[]): Promise<void> {
    for (const b of blockers) {
      const res = await svc.call('DELETE', `/api/jobs/${b.id}`, key.key);
      expect([200, 409]).toContain(res.status); // 409: the test already canceled it
    }
    await until('the render slots to free', () => svc.limiter.activeCount === 0 || undefined);
  }

  const jobRows = (key: IssuedKey): number =>
    (svc.db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE key_id = ?').get(key.id) as { n: number }).n;

  return { submit, submitOk, getJob, waitForStatus, occupySlots, freeSlots, jobRows };
}

// ---------------------------------------------------------------------------------------------------
// One service (2 render slots) for the submission, idempotency, cancel, ownership, listing, result and
// fairness tests; each test leaves the slots free.

describe('jobs API on a service with 2 render slots', () => {
  let svc: TestService;
  let h: ReturnType<typeof api>;

  beforeAll(async () => {
    svc = await startTestService({ render: { concurrency: 2 }, jobs: { pollIntervalMs: 100 } });
    h = api(svc);
  });
  afterAll(async () => {
    await svc?.close();
  });

  describe('submission rules', () => {
    let key: IssuedKey;
    beforeAll(() => {
      key = svc.createKey('submit');
    });

    it('answers 202 with the queued job and a Location that serves it', async () => {
      const res = await h.submit(key, { html: '<p>SUBMIT-202</p>' });
      expect(res.status).toBe(202);
      const job = (await res.json()) as JobJson;
      expect(job.id).toMatch(/^job_/);
      expect(job).toMatchObject({ kind: 'pdf', status: 'queued', attempts: 0 });
      expect(Number.isNaN(Date.parse(job.createdAt))).toBe(false);
      expect(res.headers.get('location')).toBe(`/api/jobs/${job.id}`);
      const viaLocation = await svc.call('GET', res.headers.get('location')!, key.key);
      expect(viaLocation.status).toBe(200);
      expect(((await viaLocation.json()) as JobJson).id).toBe(job.id);
      await h.waitForStatus(key, job.id, ['succeeded']);
    });

    it('refuses an anonymous async request with 401 and creates no job', async () => {
      const before = (svc.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
      const res = await svc.post('/api/pdf', { html: '<p>anon</p>', async: true });
      expect(res.status).toBe(401);
      expect((await errorOf(res)).code).toBe('unauthorized');
      expect((svc.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n).toBe(before);
    });

    it('refuses webhookUrl without async with 400 naming webhookUrl', async () => {
      const res = await svc.call('POST', '/api/pdf', key.key, {
        html: '<p>x</p>',
        webhookUrl: 'http://127.0.0.1:9/hook',
      });
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_request');
      expect(err.details?.map((d) => d.path)).toContain('webhookUrl');
    });

    it('refuses a webhookUrl that is not http(s) with 400 naming webhookUrl', async () => {
      for (const webhookUrl of ['ftp://127.0.0.1/hook', 'file:///etc/passwd', 'not a url']) {
        const res = await h.submit(key, { html: '<p>x</p>', webhookUrl });
        expect(res.status, webhookUrl).toBe(400);
        const err = await errorOf(res);
        expect(err.code).toBe('invalid_request');
        expect(
          err.details?.map((d) => d.path),
          webhookUrl,
        ).toContain('webhookUrl');
      }
    });

    it('refuses a webhookUrl on a private address at submit with 400, and creates no job', async () => {
      const before = h.jobRows(key);
      const res = await h.submit(key, { html: '<p>x</p>', webhookUrl: 'http://10.0.0.1/hook' });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).details?.map((d) => d.path)).toContain('webhookUrl');
      expect(h.jobRows(key)).toBe(before);
    });

    it('refuses a render url blocked by the egress policy with 403 url_blocked, and creates no job', async () => {
      const before = h.jobRows(key);
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/']) {
        const res = await h.submit(key, { url });
        expect(res.status, url).toBe(403);
        expect((await errorOf(res)).code).toBe('url_blocked');
      }
      expect(h.jobRows(key)).toBe(before);
    });
  });

  describe('Idempotency-Key', () => {
    let key: IssuedKey;
    beforeAll(() => {
      key = svc.createKey('idem');
    });

    it('the same key and body answer 200 with the same job, every time', async () => {
      const body = { html: '<p>IDEM-SAME</p>', filename: 'same.pdf' };
      const first = await h.submit(key, body, { 'Idempotency-Key': 'order-1' });
      expect(first.status).toBe(202);
      const job = (await first.json()) as JobJson;
      for (let i = 0; i < 2; i++) {
        const again = await h.submit(key, body, { 'Idempotency-Key': 'order-1' });
        expect(again.status).toBe(200);
        expect(again.headers.get('location')).toBe(`/api/jobs/${job.id}`);
        expect(((await again.json()) as JobJson).id).toBe(job.id);
      }
      // Property order is not part of "the same body".
      const reordered = await h.submit(
        key,
        { filename: 'same.pdf', html: '<p>IDEM-SAME</p>' },
        { 'Idempotency-Key': 'order-1' },
      );
      expect(reordered.status).toBe(200);
      expect(((await reordered.json()) as JobJson).id).toBe(job.id);
      expect(h.jobRows(key)).toBe(1);
    });

    it('the same key with a different body (or endpoint) is 409 conflict', async () => {
      const first = await h.submit(key, { html: '<p>IDEM-A</p>' }, { 'Idempotency-Key': 'order-2' });
      expect(first.status).toBe(202);
      const rows = h.jobRows(key);
      const other = await h.submit(key, { html: '<p>IDEM-B</p>' }, { 'Idempotency-Key': 'order-2' });
      expect(other.status).toBe(409);
      expect((await errorOf(other)).code).toBe('conflict');
      const otherKind = await h.submit(key, { html: '<p>IDEM-A</p>' }, { 'Idempotency-Key': 'order-2' }, 'image');
      expect(otherKind.status).toBe(409);
      expect(h.jobRows(key)).toBe(rows);
    });

    it('the same body under another Idempotency-Key, or without one, is a new job', async () => {
      const body = { html: '<p>IDEM-FRESH</p>' };
      const a = await h.submit(key, body, { 'Idempotency-Key': 'order-3a' });
      const b = await h.submit(key, body, { 'Idempotency-Key': 'order-3b' });
      const c = await h.submit(key, body);
      expect([a.status, b.status, c.status]).toEqual([202, 202, 202]);
      const ids = new Set([
        ((await a.json()) as JobJson).id,
        ((await b.json()) as JobJson).id,
        ((await c.json()) as JobJson).id,
      ]);
      expect(ids.size).toBe(3);
    });

    it('an Idempotency-Key belongs to one API key: another key using it gets its own job', async () => {
      const other = svc.createKey('idem-other');
      const body = { html: '<p>IDEM-SCOPE</p>' };
      const mine = await h.submit(key, body, { 'Idempotency-Key': 'order-4' });
      const theirs = await h.submit(other, body, { 'Idempotency-Key': 'order-4' });
      expect([mine.status, theirs.status]).toEqual([202, 202]);
      expect(((await mine.json()) as JobJson).id).not.toBe(((await theirs.json()) as JobJson).id);
    });

    it('a key older than 24 h starts a new job, which the key then names', async () => {
      const body = { html: '<p>IDEM-OLD</p>' };
      const first = await h.submit(key, body, { 'Idempotency-Key': 'order-5' });
      expect(first.status).toBe(202);
      const oldId = ((await first.json()) as JobJson).id;
      const aged = svc.db
        .prepare('UPDATE idempotency_keys SET created_at = ? WHERE key_id = ? AND idem_key = ?')
        .run(new Date(Date.now() - 25 * 3600_000).toISOString(), key.id, 'order-5');
      expect(aged.changes).toBe(1);

      const fresh = await h.submit(key, body, { 'Idempotency-Key': 'order-5' });
      expect(fresh.status).toBe(202);
      const newId = ((await fresh.json()) as JobJson).id;
      expect(newId).not.toBe(oldId);
      const repeat = await h.submit(key, body, { 'Idempotency-Key': 'order-5' });
      expect(repeat.status).toBe(200);
      expect(((await repeat.json()) as JobJson).id).toBe(newId);
    });

    it('an expired key may be reused with a different body (no 409)', async () => {
      const first = await h.submit(key, { html: '<p>IDEM-OLD-A</p>' }, { 'Idempotency-Key': 'order-6' });
      expect(first.status).toBe(202);
      svc.db
        .prepare('UPDATE idempotency_keys SET created_at = ? WHERE key_id = ? AND idem_key = ?')
        .run(new Date(Date.now() - 25 * 3600_000).toISOString(), key.id, 'order-6');
      const second = await h.submit(key, { html: '<p>IDEM-OLD-B</p>' }, { 'Idempotency-Key': 'order-6' });
      expect(second.status).toBe(202);
    });

    it('accepts 255 printable characters; refuses 256 and a value with a space (400 naming the header)', async () => {
      const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
      const longest = printable.repeat(3).slice(0, 255);
      expect(longest).toHaveLength(255);
      const ok = await h.submit(key, { html: '<p>IDEM-255</p>' }, { 'Idempotency-Key': longest });
      expect(ok.status).toBe(202);
      // ...and it really is the key: the repeat finds the job.
      const again = await h.submit(key, { html: '<p>IDEM-255</p>' }, { 'Idempotency-Key': longest });
      expect(again.status).toBe(200);

      const rows = h.jobRows(key);
      for (const value of [`${longest}x`, 'has a space']) {
        const res = await h.submit(key, { html: '<p>IDEM-BAD</p>' }, { 'Idempotency-Key': value });
        expect(res.status, value).toBe(400);
        const err = await errorOf(res);
        expect(err.code).toBe('invalid_request');
        expect(err.details?.map((d) => d.path)).toContain('Idempotency-Key');
      }
      expect(h.jobRows(key)).toBe(rows);
    });

    it('two concurrent submissions with the same key and body make one job, and both answer it', async () => {
      const racer = svc.createKey('idem-race');
      const body = { html: '<p>IDEM-RACE</p>' };
      const [a, b] = await Promise.all([
        h.submit(racer, body, { 'Idempotency-Key': 'race-1' }),
        h.submit(racer, body, { 'Idempotency-Key': 'race-1' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 202]);
      const [ja, jb] = [(await a.json()) as JobJson, (await b.json()) as JobJson];
      expect(ja.id).toBe(jb.id);
      expect(h.jobRows(racer)).toBe(1);
    });
  });

  describe('cancel', () => {
    let key: IssuedKey;
    beforeAll(() => {
      key = svc.createKey('cancel');
    });

    it('a queued job is canceled (200) and never runs', async () => {
      const blockers = await h.occupySlots(key);
      const queued = await h.submitOk(key, { html: '<p>NEVER-RUNS</p>' });
      expect((await h.getJob(key, queued.id)).status).toBe('queued');

      const res = await svc.call('DELETE', `/api/jobs/${queued.id}`, key.key);
      expect(res.status).toBe(200);
      const canceled = (await res.json()) as JobJson;
      expect(canceled).toMatchObject({ id: queued.id, status: 'canceled', attempts: 0 });
      expect(canceled.finishedAt).toBeDefined();

      // Free the slots and let the worker claim again: a later job runs, the canceled one does not.
      await h.freeSlots(key, blockers);
      const later = await h.submitOk(key, { html: '<p>RUNS</p>' });
      await h.waitForStatus(key, later.id, ['succeeded']);
      const after = await h.getJob(key, queued.id);
      expect(after).toMatchObject({ status: 'canceled', attempts: 0 });
      expect(after.startedAt).toBeUndefined();
      expect(after.result).toBeUndefined();
      const row = svc.db.prepare('SELECT attempts, result_key, lease_owner FROM jobs WHERE id = ?').get(queued.id);
      expect(row).toEqual({ attempts: 0, result_key: null, lease_owner: null });
    });

    it('a running job is canceled (200), its render stops and frees the slot, and it stays canceled', async () => {
      const [running, other] = await h.occupySlots(key);
      const hangOf = hangs.length - 2; // the requests of this test's two blockers
      const res = await svc.call('DELETE', `/api/jobs/${running!.id}`, key.key);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: running!.id, status: 'canceled', attempts: 1 });

      // The slot frees while the other blocker still hangs...
      await until('the canceled render to leave its slot', () => svc.limiter.activeCount === 1);
      // ...so a synchronous render gets it. Its own timeout (counted while it waits for a slot too) is far
      // below the blockers' 120 s: had the slot not freed, this would be a 504.
      const sync = await svc.call('POST', '/api/pdf', key.key, { html: '<p>AFTER-CANCEL</p>', timeout: 20_000 });
      expect(sync.status).toBe(200);
      expect((await parsePdf(await bytesOf(sync))).text).toContain('AFTER-CANCEL');
      // Chromium gave up on one of the two page loads (the canceled one), not on the other.
      await until(
        'the canceled page load to be dropped',
        () => hangs.slice(hangOf).filter((x) => x.closed).length === 1,
        10_000,
      );
      expect((await h.getJob(key, other!.id)).status).toBe('running');

      await h.freeSlots(key, [other!]);
      // Once the worker holds no job, every run has ended: whatever the canceled one recorded is there.
      await until('the worker to finish its runs', () => svc.worker.runningCount === 0, 30_000);
      for (const id of [running!.id, other!.id]) {
        const job = await h.getJob(key, id);
        expect(job.status).toBe('canceled');
        expect(job.result).toBeUndefined();
        expect(job.error).toBeUndefined();
      }
      expect(readdirSync(join(svc.dataDir, 'results')).filter((f) => f.startsWith(running!.id))).toEqual([]);
    });

    it('a succeeded job cannot be canceled: 409 conflict, and it stays succeeded', async () => {
      const job = await h.submitOk(key, { html: '<p>DONE</p>' });
      await h.waitForStatus(key, job.id, ['succeeded']);
      const res = await svc.call('DELETE', `/api/jobs/${job.id}`, key.key);
      expect(res.status).toBe(409);
      expect((await errorOf(res)).code).toBe('conflict');
      expect((await h.getJob(key, job.id)).status).toBe('succeeded');
      expect((await svc.call('GET', `/api/jobs/${job.id}/result`, key.key)).status).toBe(200);
    });

    it('canceling twice: the second DELETE is 409 conflict', async () => {
      const job = await h.submitOk(key, { url: `${fixture.url}/hang`, timeout: 120_000 });
      const first = await svc.call('DELETE', `/api/jobs/${job.id}`, key.key);
      expect(first.status).toBe(200);
      const second = await svc.call('DELETE', `/api/jobs/${job.id}`, key.key);
      expect(second.status).toBe(409);
      expect((await errorOf(second)).code).toBe('conflict');
      await until('the render slots to free', () => svc.limiter.activeCount === 0);
    });
  });

  describe('ownership', () => {
    let owner: IssuedKey;
    let stranger: IssuedKey;
    beforeAll(() => {
      owner = svc.createKey('owner');
      stranger = svc.createKey('stranger');
    });

    it('another key gets 404 for the job, its result and its cancel, and does not list it', async () => {
      const job = await h.submitOk(owner, { html: '<p>MINE</p>' });
      await h.waitForStatus(owner, job.id, ['succeeded']);
      for (const [method, path] of [
        ['GET', `/api/jobs/${job.id}`],
        ['GET', `/api/jobs/${job.id}/result`],
        ['DELETE', `/api/jobs/${job.id}`],
      ] as const) {
        const res = await svc.call(method, path, stranger.key);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect((await errorOf(res)).code).toBe('not_found');
      }
      const list = (await (await svc.call('GET', '/api/jobs?limit=100', stranger.key)).json()) as JobPage;
      expect(list.items.map((j) => j.id)).not.toContain(job.id);
      // The owner still has it all.
      expect((await h.getJob(owner, job.id)).status).toBe('succeeded');
      expect((await svc.call('GET', `/api/jobs/${job.id}/result`, owner.key)).status).toBe(200);
    });

    it("another key's DELETE does not cancel a running job", async () => {
      const job = await h.submitOk(owner, { url: `${fixture.url}/hang`, timeout: 120_000 });
      await h.waitForStatus(owner, job.id, ['running']);
      const res = await svc.call('DELETE', `/api/jobs/${job.id}`, stranger.key);
      expect(res.status).toBe(404);
      expect((await h.getJob(owner, job.id)).status).toBe('running');
      await h.freeSlots(owner, [job]);
    });

    it('an unknown id is 404 for the job, its result and its cancel', async () => {
      for (const [method, path] of [
        ['GET', '/api/jobs/job_00000000000000000000'],
        ['GET', '/api/jobs/job_00000000000000000000/result'],
        ['DELETE', '/api/jobs/job_00000000000000000000'],
      ] as const) {
        const res = await svc.call(method, path, owner.key);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect((await errorOf(res)).code).toBe('not_found');
      }
    });

    it('the jobs routes need a key: 401 without one', async () => {
      const res = await fetch(`${svc.url}/api/jobs`);
      expect(res.status).toBe(401);
      expect((await errorOf(res)).code).toBe('unauthorized');
    });
  });

  describe('listing', () => {
    let key: IssuedKey;
    /** Submission order, oldest first. */
    const submitted: { id: string; status: string }[] = [];

    const list = async (query: string) => {
      const res = await svc.call('GET', `/api/jobs${query}`, key.key);
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as JobPage;
    };

    beforeAll(async () => {
      key = svc.createKey('lister');
      // 5 that succeed, 1 that fails (404 page), 1 canceled; a few ms apart so createdAt orders them.
      for (let i = 0; i < 5; i++) {
        const job = await h.submitOk(key, { html: `<p>LIST-${i}</p>` });
        submitted.push({ id: job.id, status: 'succeeded' });
        await clockPast(job.createdAt);
      }
      const failing = await h.submitOk(key, { url: `${fixture.url}/status/404` });
      submitted.push({ id: failing.id, status: 'failed' });
      await clockPast(failing.createdAt);
      const hang = await h.submitOk(key, { url: `${fixture.url}/hang`, timeout: 120_000 });
      expect((await svc.call('DELETE', `/api/jobs/${hang.id}`, key.key)).status).toBe(200);
      submitted.push({ id: hang.id, status: 'canceled' });
      for (const s of submitted) await h.waitForStatus(key, s.id, FINISHED);
      await until('the render slots to free', () => svc.limiter.activeCount === 0);
    });

    it('lists newest first with each job in its final status', async () => {
      const page = await list('');
      expect(page.nextCursor).toBeNull();
      expect(page.items.map((j) => j.id)).toEqual(submitted.map((s) => s.id).reverse());
      expect(page.items.map((j) => j.status)).toEqual(submitted.map((s) => s.status).reverse());
    });

    it('filters by status', async () => {
      const succeeded = await list('?status=succeeded');
      expect(succeeded.items.map((j) => j.id)).toEqual(
        submitted
          .filter((s) => s.status === 'succeeded')
          .map((s) => s.id)
          .reverse(),
      );
      expect((await list('?status=failed')).items.map((j) => j.id)).toEqual([submitted[5]!.id]);
      expect((await list('?status=canceled')).items.map((j) => j.id)).toEqual([submitted[6]!.id]);
      expect((await list('?status=queued')).items).toEqual([]);
    });

    it('pages with limit and nextCursor: no duplicates, no gaps, null at the end — even as new jobs arrive', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      let newcomer: string | undefined;
      do {
        const page: JobPage = await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items.map((j) => j.id));
        cursor = page.nextCursor;
        pages++;
        // A job submitted mid-paging lands at the top, not in the pages still to come.
        if (pages === 1) newcomer = (await h.submitOk(key, { html: '<p>LIST-NEW</p>' })).id;
      } while (cursor !== null && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toEqual(submitted.map((s) => s.id).reverse());
      expect(new Set(seen).size).toBe(seen.length);
      await h.waitForStatus(key, newcomer!, ['succeeded']);
      submitted.push({ id: newcomer!, status: 'succeeded' });
    });

    it('accepts limit 1 and 100', async () => {
      const one = await list('?limit=1');
      expect(one.items.map((j) => j.id)).toEqual([submitted[submitted.length - 1]!.id]);
      expect(one.nextCursor).not.toBeNull();
      const next = await list(`?limit=1&cursor=${encodeURIComponent(one.nextCursor!)}`);
      expect(next.items.map((j) => j.id)).toEqual([submitted[submitted.length - 2]!.id]);
      const hundred = await list('?limit=100');
      expect(hundred.items).toHaveLength(submitted.length);
      expect(hundred.nextCursor).toBeNull();
    });

    it('refuses limit 0, 101 and non-numbers with 400 naming limit', async () => {
      for (const limit of ['0', '101', 'ten', '1.5']) {
        const res = await svc.call('GET', `/api/jobs?limit=${limit}`, key.key);
        expect(res.status, limit).toBe(400);
        const err = await errorOf(res);
        expect(err.code).toBe('invalid_request');
        expect(
          err.details?.map((d) => d.path),
          limit,
        ).toContain('limit');
      }
    });

    it('refuses an unknown status, a garbage cursor and an unknown parameter with 400 naming each', async () => {
      const cases: [string, string][] = [
        ['?status=done', 'status'],
        ['?cursor=garbage', 'cursor'],
        [`?cursor=${Buffer.from('{"a":1}').toString('base64url')}`, 'cursor'],
        ['?sort=asc', 'sort'],
      ];
      for (const [query, field] of cases) {
        const res = await svc.call('GET', `/api/jobs${query}`, key.key);
        expect(res.status, query).toBe(400);
        const err = await errorOf(res);
        expect(err.code).toBe('invalid_request');
        expect(
          err.details?.map((d) => d.path),
          query,
        ).toContain(field);
      }
    });
  });

  describe('result', () => {
    let key: IssuedKey;
    beforeAll(() => {
      key = svc.createKey('result');
    });

    it('is 404 not_found while the job is queued or running', async () => {
      const blockers = await h.occupySlots(key);
      const queued = await h.submitOk(key, { html: '<p>WAITING</p>' });
      for (const id of [blockers[0]!.id, queued.id]) {
        const res = await svc.call('GET', `/api/jobs/${id}/result`, key.key);
        expect(res.status).toBe(404);
        expect((await errorOf(res)).code).toBe('not_found');
      }
      await h.freeSlots(key, blockers);
      await h.waitForStatus(key, queued.id, ['succeeded']);
    });

    it('serves a PDF with its Content-Type and the requested filename (extension added)', async () => {
      const job = await h.submitOk(key, { html: '<p>RESULT-PDF-MARKER</p>', filename: 'invoice-42' });
      const done = await h.waitForStatus(key, job.id, ['succeeded']);
      const res = await svc.call('GET', `/api/jobs/${job.id}/result`, key.key);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe('inline; filename="invoice-42.pdf"');
      const bytes = await bytesOf(res);
      expect(bytes.length).toBe(done.result!.bytes);
      expect((await parsePdf(bytes)).text).toContain('RESULT-PDF-MARKER');
    });

    it('serves a JPEG and a PNG with their types and filenames (defaults when none was given)', async () => {
      const jpeg = await h.submitOk(
        key,
        {
          html: '<body style="background:#00f">',
          format: 'jpeg',
          filename: 'shot.jpeg',
          viewport: { width: 200, height: 100 },
        },
        'image',
      );
      const png = await h.submitOk(
        key,
        { html: '<body style="margin:0;background:#f00">', viewport: { width: 200, height: 100 } },
        'image',
      );
      await h.waitForStatus(key, jpeg.id, ['succeeded']);
      await h.waitForStatus(key, png.id, ['succeeded']);

      const j = await svc.call('GET', `/api/jobs/${jpeg.id}/result`, key.key);
      expect(j.status).toBe(200);
      expect(j.headers.get('content-type')).toBe('image/jpeg');
      expect(j.headers.get('content-disposition')).toBe('inline; filename="shot.jpeg"');
      expect([...(await bytesOf(j)).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

      const p = await svc.call('GET', `/api/jobs/${png.id}/result`, key.key);
      expect(p.status).toBe(200);
      expect(p.headers.get('content-type')).toBe('image/png');
      expect(p.headers.get('content-disposition')).toBe('inline; filename="screenshot.png"');
      const image = decodePng(await bytesOf(p));
      expect([image.width, image.height]).toEqual([200, 100]);
      expect(image.pixel(5, 5)).toMatchObject({ r: 255, g: 0, b: 0 });
    });
  });

  describe('fairness', () => {
    it('a synchronous render succeeds while 10 jobs are pending, and all 10 jobs later succeed', async () => {
      const key = svc.createKey('fair');
      // Each job takes at least a second, so the backlog (10 jobs over 2 slots) lasts several seconds.
      const jobs: JobJson[] = [];
      for (let i = 0; i < 10; i++) jobs.push(await h.submitOk(key, { html: `<p>FAIR-${i}</p>`, delay: 1000 }));
      const pending = () =>
        (
          svc.db
            .prepare(`SELECT COUNT(*) AS n FROM jobs WHERE key_id = ? AND status IN ('queued', 'running')`)
            .get(key.id) as { n: number }
        ).n;
      expect(pending()).toBeGreaterThan(0);

      const sync = await svc.call('POST', '/api/image', key.key, {
        html: '<body style="margin:0;background:#0f0">',
        viewport: { width: 100, height: 100 },
      });
      expect(sync.status).toBe(200);
      expect(decodePng(await bytesOf(sync)).pixel(50, 50)).toMatchObject({ r: 0, g: 255, b: 0 });
      // It did not wait for the backlog to drain: it shared the line with the jobs.
      expect(pending()).toBeGreaterThan(0);

      for (const job of jobs) await h.waitForStatus(key, job.id, ['succeeded', 'failed'], 45_000);
      const final = await Promise.all(jobs.map((j) => h.getJob(key, j.id)));
      expect(final.map((j) => j.status)).toEqual(Array(10).fill('succeeded'));
    });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('result expiry (jobs.resultTtlHours ≈ 7.2 s, sweeper every 200 ms)', () => {
  let svc: TestService;
  let h: ReturnType<typeof api>;
  let key: IssuedKey;

  beforeAll(async () => {
    // 0.002 h = 7.2 s: long enough to fetch the result once even on a loaded machine.
    svc = await startTestService({
      render: { concurrency: 2 },
      jobs: { pollIntervalMs: 50, resultTtlHours: 0.002, sweepIntervalMs: 200 },
    });
    h = api(svc);
    key = svc.createKey('expiry');
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('the result is served, then answers 410 gone; the job still says succeeded and the sweeper removes the file', async () => {
    const job = await h.submitOk(key, { html: '<p>EXPIRES</p>' });
    const done = await until(
      'the job to succeed',
      async () => {
        const j = await h.getJob(key, job.id);
        return j.status === 'succeeded' ? j : undefined;
      },
      30_000,
      20,
    );
    const file = join(svc.dataDir, 'results', `${job.id}-1`);
    expect(existsSync(file)).toBe(true);
    const first = await svc.call('GET', `/api/jobs/${job.id}/result`, key.key);
    expect(first.status).toBe(200);
    expect((await bytesOf(first)).length).toBe(done.result!.bytes);
    expect(done.result!.expired).toBe(false);
    const ttl = Date.parse(done.result!.expiresAt) - Date.parse(done.finishedAt!);
    // The expiry is set when the result is stored, a moment before the job is recorded as finished.
    expect(ttl).toBeLessThanOrEqual(7200);
    expect(ttl).toBeGreaterThan(7200 - 1000);

    const gone = await until(
      'the result to expire',
      async () => {
        const res = await svc.call('GET', `/api/jobs/${job.id}/result`, key.key);
        if (res.status === 200) {
          await res.arrayBuffer();
          return undefined;
        }
        return res;
      },
      20_000,
      200,
    );
    expect(gone.status).toBe(410);
    expect((await errorOf(gone)).code).toBe('gone');

    const after = await h.getJob(key, job.id);
    expect(after.status).toBe('succeeded');
    expect(after.result).toMatchObject({ expired: true, bytes: done.result!.bytes });

    await until('the sweeper to remove the file', () => !existsSync(file), 10_000);
    expect(readdirSync(join(svc.dataDir, 'results')).filter((f) => f.startsWith(job.id))).toEqual([]);
    await until(
      'the row to record the removal',
      () =>
        (svc.db.prepare('SELECT result_removed_at AS at FROM jobs WHERE id = ?').get(job.id) as { at: string | null })
          .at !== null,
      5_000,
    );
    // Still 410 (not 404, not 500) once the file is gone.
    const later = await svc.call('GET', `/api/jobs/${job.id}/result`, key.key);
    expect(later.status).toBe(410);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('jobs.maxQueuedPerKey = 2', () => {
  let svc: TestService;
  let h: ReturnType<typeof api>;

  beforeAll(async () => {
    svc = await startTestService({ render: { concurrency: 2 }, jobs: { pollIntervalMs: 100, maxQueuedPerKey: 2 } });
    h = api(svc);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('the 3rd queued job of a key is 429 queue_full with Retry-After; other keys are unaffected; it clears as jobs finish', async () => {
    // Another key holds both slots, so this key's jobs stay queued.
    const blocker = svc.createKey('blocker');
    const key = svc.createKey('limited');
    const other = svc.createKey('unaffected');
    const blockers = await h.occupySlots(blocker);

    const firstRes = await h.submit(key, { html: '<p>Q1</p>' }, { 'Idempotency-Key': 'q1' });
    expect(firstRes.status).toBe(202);
    const first = (await firstRes.json()) as JobJson;
    const second = await h.submitOk(key, { html: '<p>Q2</p>' });
    for (const j of [first, second]) expect((await h.getJob(key, j.id)).status).toBe('queued');
    const third = await h.submit(key, { html: '<p>Q3</p>' });
    expect(third.status).toBe(429);
    expect((await errorOf(third)).code).toBe('queue_full');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(h.jobRows(key)).toBe(2);
    // A repeat of an accepted job (same Idempotency-Key and body) is not a new job: answered, not 429.
    const repeat = await h.submit(key, { html: '<p>Q1</p>' }, { 'Idempotency-Key': 'q1' });
    expect(repeat.status).toBe(200);
    expect(((await repeat.json()) as JobJson).id).toBe(first.id);
    const otherKeyJob = await h.submitOk(other, { html: '<p>OTHER</p>' });

    await h.freeSlots(blocker, blockers);
    for (const j of [first, second]) await h.waitForStatus(key, j.id, ['succeeded']);
    await h.waitForStatus(other, otherKeyJob.id, ['succeeded']);
    const again = await h.submitOk(key, { html: '<p>Q3</p>' });
    await h.waitForStatus(key, again.id, ['succeeded']);
  });

  it('running jobs count too: a key with 2 running jobs is refused a 3rd', async () => {
    const key = svc.createKey('running-count');
    const blockers = await h.occupySlots(key);
    const res = await h.submit(key, { html: '<p>TOO-MANY</p>' });
    expect(res.status).toBe(429);
    expect((await errorOf(res)).code).toBe('queue_full');
    await h.freeSlots(key, blockers);
    await h.waitForStatus(key, (await h.submitOk(key, { html: '<p>NOW-OK</p>' })).id, ['succeeded']);
  });
});
