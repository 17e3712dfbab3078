// `pagewatch keys delete ID --purge` (issue #10): run as its own process next to the running service,
// it leaves no row and no file of the key — jobs and their result files, monitors, captures and their
// images, webhook deliveries and attempts, idempotency keys — and another key's data is untouched.
// Without --purge it refuses, saying what --purge removes. Real service, real Chromium, the real CLI.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { runKeysCli } from '../helpers/keys-cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
let fx: FixtureServer;
let hooks: WebhookReceiver;

beforeAll(async () => {
  fx = await startFixtureServer();
  hooks = await startWebhookReceiver();
  svc = await startTestService({
    jobs: { pollIntervalMs: 200 },
    rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
  });
});
afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fx?.close();
});

interface Owned {
  keyId: string;
  jobId: string;
  monitorId: string;
}

/** A key with one of everything: a finished job with a result file, an idempotency key, a monitor with a capture, a delivered webhook. */
async function keyWithData(name: string): Promise<Owned> {
  const key = svc.createKey(name);
  const res = await svc.call(
    'POST',
    '/api/pdf',
    key.key,
    { html: `<p>${name}</p>`, async: true, webhookUrl: hooks.url },
    { 'idempotency-key': `idem-${name}` },
  );
  expect(res.status).toBe(202);
  const jobId = ((await res.json()) as { id: string }).id;
  await until(
    `${name}'s delivery to succeed`,
    () => svc.db.prepare(`SELECT 1 FROM webhook_deliveries WHERE job_id = ? AND status = 'succeeded'`).get(jobId),
    30_000,
  );
  const created = await svc.call('POST', '/api/monitors', key.key, {
    url: `${fx.url}/invoice`,
    schedule: '0 0 1 1 *',
    capture: { viewport: { width: 320, height: 200 } },
  });
  const monitorId = ((await created.json()) as { id: string }).id;
  expect((await svc.call('POST', `/api/monitors/${monitorId}/run`, key.key)).status).toBe(202);
  await until(
    `${name}'s capture`,
    () => svc.db.prepare(`SELECT 1 FROM captures WHERE monitor_id = ? AND status = 'succeeded'`).get(monitorId),
    30_000,
  );
  await until(
    `${name}'s capture job to finish`,
    () => !svc.db.prepare(`SELECT 1 FROM jobs WHERE monitor_id = ? AND status IN ('queued', 'running')`).get(monitorId),
  );
  return { keyId: key.id, jobId, monitorId };
}

/** Rows of every table that hold something of the key. */
function rowsOf(o: Owned): Record<string, number> {
  const count = (sql: string, ...args: string[]) => (svc.db.prepare(sql).get(...args) as { n: number }).n;
  return {
    apiKeys: count('SELECT COUNT(*) AS n FROM api_keys WHERE id = ?', o.keyId),
    jobs: count('SELECT COUNT(*) AS n FROM jobs WHERE key_id = ?', o.keyId),
    idempotencyKeys: count(
      'SELECT COUNT(*) AS n FROM idempotency_keys WHERE key_id = ? OR job_id = ?',
      o.keyId,
      o.jobId,
    ),
    monitors: count('SELECT COUNT(*) AS n FROM monitors WHERE key_id = ?', o.keyId),
    captures: count('SELECT COUNT(*) AS n FROM captures WHERE monitor_id = ?', o.monitorId),
    deliveries: count('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE key_id = ?', o.keyId),
    attempts: count(
      'SELECT COUNT(*) AS n FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE job_id = ?)',
      o.jobId,
    ),
  };
}

function filesOf(o: Owned): string[] {
  const results = readdirSync(join(svc.dataDir, 'results')).filter((f) => f.startsWith(o.jobId));
  const captures = existsSync(join(svc.dataDir, 'captures', o.monitorId))
    ? readdirSync(join(svc.dataDir, 'captures', o.monitorId))
    : [];
  return [...results, ...captures];
}

describe('pagewatch keys delete --purge', () => {
  it('without --purge: a usage error that says what --purge removes (exit 2), and nothing is touched', async () => {
    const owned = await keyWithData('kept-without-flag');
    const before = rowsOf(owned);
    const run = await runKeysCli(svc.dataDir, ['delete', owned.keyId]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--purge is required');
    for (const what of [
      'jobs',
      'result files',
      'monitors',
      'captures',
      'webhook deliveries',
      'attempts',
      'idempotency keys',
    ]) {
      expect(run.stderr).toContain(what);
    }
    expect(rowsOf(owned)).toEqual(before);
    expect((await runKeysCli(svc.dataDir, ['delete', '--purge'])).code).toBe(2); // no id
  }, 90_000);

  it('removes every row and file of the key and nothing of another key', async () => {
    const doomed = await keyWithData('doomed');
    const kept = await keyWithData('kept');
    expect(Object.values(rowsOf(doomed)).every((n) => n >= 1)).toBe(true);
    expect(filesOf(doomed).length).toBeGreaterThanOrEqual(2); // a result and a capture image
    const keptRows = rowsOf(kept);
    const keptFiles = filesOf(kept);

    const run = await runKeysCli(svc.dataDir, ['delete', doomed.keyId, '--purge']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      `revoked ${doomed.keyId}`,
      'jobs:               2', // the render job and the capture job
      'job results:        1',
      'monitors:           1',
      'captures:           1',
      'webhook deliveries: 1',
      'webhook attempts:   1',
      'idempotency keys:   1',
      `deleted ${doomed.keyId}`,
      '',
    ]);
    expect(rowsOf(doomed)).toEqual({
      apiKeys: 0,
      jobs: 0,
      idempotencyKeys: 0,
      monitors: 0,
      captures: 0,
      deliveries: 0,
      attempts: 0,
    });
    expect(filesOf(doomed)).toEqual([]);
    expect(existsSync(join(svc.dataDir, 'captures', doomed.monitorId))).toBe(false);
    expect(rowsOf(kept)).toEqual(keptRows);
    expect(filesOf(kept)).toEqual(keptFiles);

    // A second run finds no such key.
    const again = await runKeysCli(svc.dataDir, ['delete', doomed.keyId, '--purge']);
    expect(again).toMatchObject({ code: 1, stderr: `no key with id ${doomed.keyId}\n` });
  }, 120_000);
});
