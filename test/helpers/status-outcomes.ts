// Render requests that end each way the status page counts, made for real against a test service:
// ok, failed, blocked (sync and at async submission), timed out, rate-limited (the anonymous tier's one
// render per address at a time) and queue full (one slot, one place in line). Used by the /api/status
// integration test and the /status e2e test, which both check the counts that follow.
import { expect } from 'vitest';
import type { TestService } from './service.js';
import { until } from './until.js';

/** The service options the scenario needs: one render slot, one place in line, one anonymous render per address. */
export const OUTCOME_SERVICE = {
  render: { concurrency: 1, queueSize: 1 },
  limits: { anonymousConcurrencyPerIp: 1 },
};

/** What the scenario makes, as /api/status's lastHour.renders counts it. */
export const EXPECTED_OUTCOMES = {
  ok: 3,
  failed: 1,
  blocked: 2,
  timedOut: 1,
  rateLimited: 1,
  queueFull: 1,
  canceled: 0,
  total: 9,
};

const TINY = '<p>tiny</p>';
/** Busy for `ms` in its own script: holds the one render slot that long. */
const busy = (ms: number) => `<body><script>const t=Date.now()+${ms};while(Date.now()<t){}</script>busy</body>`;

async function codeOf(res: Response): Promise<string> {
  const body = (await res.json()) as { error: { code: string } };
  return body.error.code;
}

/** Makes the scenario's requests; returns the X-Render-Ms of the successful ones. */
export async function makeEachOutcome(svc: TestService, key: string): Promise<number[]> {
  const image = (body: object, withKey = false) =>
    withKey ? svc.call('POST', '/api/image', key, body) : svc.post('/api/image', body);
  const small = { viewport: { width: 40, height: 30 } };

  // One slow anonymous render holds the slot; a keyed one waits in line; the line is then full.
  const slow = image({ html: busy(2500), ...small });
  await until('the slow render to start', () => svc.limiter.activeCount === 1, 15_000, 10);
  const queued = image({ html: TINY, ...small }, true);
  await until('the second render to queue', () => svc.limiter.queuedCount === 1, 15_000, 10);
  const full = await image({ html: TINY, ...small }, true);
  expect(full.status).toBe(429);
  expect(await codeOf(full)).toBe('queue_full');
  // The address's one anonymous render is the slow one: another is refused.
  const limited = await image({ html: TINY, ...small });
  expect(limited.status).toBe(429);
  expect(await codeOf(limited)).toBe('rate_limited');
  const done = await Promise.all([slow, queued]);
  done.push(await image({ html: TINY, ...small }, true));
  const renderMs: number[] = [];
  for (const res of done) {
    expect(res.status).toBe(200);
    renderMs.push(Number(res.headers.get('x-render-ms')));
    await res.arrayBuffer();
  }

  // Nothing listens on port 9: the page cannot be loaded.
  const failed = await image({ url: 'http://127.0.0.1:9/', ...small, timeout: 10_000 });
  expect(failed.status).toBe(422);
  expect(await codeOf(failed)).toBe('render_failed');
  // A private address outside the test's allowed hosts: refused by the egress policy, rendered or queued.
  for (const res of [
    await image({ url: 'http://10.1.2.3/', ...small }),
    await image({ url: 'http://10.1.2.3/', async: true, ...small }, true),
  ]) {
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe('url_blocked');
  }
  const timedOut = await image({ html: busy(60_000), ...small, timeout: 1000 });
  expect(timedOut.status).toBe(504);
  expect(await codeOf(timedOut)).toBe('render_timeout');
  return renderMs;
}
