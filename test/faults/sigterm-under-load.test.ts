// SIGTERM to a real `pagewatch serve` with 30 async jobs queued or running and 2 synchronous renders in
// flight (the fault 5): the renders are answered, the process exits 0 with no Chromium left, and
// a new process on the same data directory finishes every job, each with one webhook id.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyWithCli, killHard, startCli, type CliService } from '../helpers/durability-cli.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { processGroup } from '../helpers/processes.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const JOBS = 30;

describe('SIGTERM under load', () => {
  let dataDir: string | undefined;
  let hooks: WebhookReceiver | undefined;
  let fixture: FixtureServer | undefined;
  const children: CliService[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) await killHard(c);
    await hooks?.close();
    await fixture?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('30 jobs and 2 renders in flight: renders answered, exit 0, and a restart finishes every job once', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-sigterm-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PAGEWATCH_PORT: '0',
      PAGEWATCH_HOST: '127.0.0.1',
      PAGEWATCH_DATA_DIR: dataDir,
      PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]',
      PAGEWATCH_JOBS_POLL_INTERVAL_MS: '200',
      PAGEWATCH_RENDER_CONCURRENCY: '3',
      PAGEWATCH_RATE_LIMIT_PER_KEY_PER_MINUTE: '100000',
    };
    const key = await createKeyWithCli(env, 'sigterm');
    hooks = await startWebhookReceiver();
    const first = await startCli(env);
    children.push(first);
    const call = (svc: CliService, method: string, path: string, body?: unknown) =>
      fetch(`${svc.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const ids = await Promise.all(
      Array.from({ length: JOBS }, async (_, i) => {
        const res = await call(first, 'POST', '/api/pdf', {
          html: `<h1>JOB-${i}-${randomBytes(3).toString('hex')}</h1>`,
          delay: 300,
          async: true,
          webhookUrl: hooks!.url,
        });
        expect(res.status).toBe(202);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    // The two synchronous renders load their page from a fixture server, so its hits say when both are
    // rendering: the render queue's counts would also count the jobs, and did, sending SIGTERM too soon.
    let syncHits = 0;
    fixture = await startFixtureServer();
    fixture.route('/sync', (_req, res) => {
      syncHits++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>SYNC</p>');
    });
    const renders = [0, 1].map(() =>
      call(first, 'POST', '/api/image', {
        url: `${fixture!.url}/sync`,
        delay: 1500,
        viewport: { width: 200, height: 100 },
      }),
    );
    // SIGTERM once both synchronous renders are in the service (a request still on its way would be refused).
    await until('the two renders to load their page', () => syncHits >= 2 && hooks!.hits.length < JOBS, 30_000, 20);
    first.child.kill('SIGTERM');
    for (const res of await Promise.all(renders)) expect(res.status).toBe(200);
    expect(await first.exit).toBe(0);
    for (const pid of first.browserPids)
      await until(`browser ${pid} to be gone`, () => processGroup(pid).length === 0, 5000);
    const beforeRestart = hooks.hits.length;
    expect(beforeRestart).toBeLessThan(JOBS); // the stop really came with work unfinished

    const second = await startCli(env);
    children.push(second);
    await until(
      'every job to end',
      async () => {
        const jobs = await Promise.all(
          ids.map(async (id) => (await (await call(second, 'GET', `/api/jobs/${id}`)).json()) as { status: string }),
        );
        return jobs.every((j) => j.status === 'succeeded') || (jobs.find((j) => j.status === 'failed') && 'failed');
      },
      90_000,
      250,
    ).then((outcome) => expect(outcome).toBe(true));
    await hooks.waitForHits(JOBS, 30_000);
    const events = hooks.hits.map((hit) => verifyHit(key.webhookSecret, hit));
    const webhookIds = new Set(hooks.hits.map((h) => h.headers['webhook-id']));
    expect(new Set(events.map((e) => e.data.jobId))).toEqual(new Set(ids));
    expect(webhookIds.size).toBe(JOBS);
  });
});
