// API keys made and revoked with the real CLI against the service's own SQLite file; the anonymous
// tier; token-bucket rate limits with their headers.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/domain/key-material.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const CLI = resolve(import.meta.dirname, '../../dist/src/cli.js');
const TINY = { html: '<p>hi</p>', viewport: { width: 20, height: 20 } };

function cli(dataDir: string, ...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, PAGEWATCH_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
}

function createKey(dataDir: string, name: string): { id: string; key: string; secret: string } {
  const out = cli(dataDir, 'keys', 'create', '--name', name);
  const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)$`, 'm').exec(out)![1]!;
  return { id: field('id'), key: field('key'), secret: field('webhook secret') };
}

describe('API keys', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service?.close();
  });

  it('the CLI prints a key and a webhook secret once; only a hash is stored', () => {
    const { id, key, secret } = createKey(service.dataDir, 'acme');
    expect(key).toMatch(/^pw_live_[\w-]{32}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const row = service.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Record<string, unknown>;
    expect(row.key_hash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);
    const list = cli(service.dataDir, 'keys', 'list');
    expect(list).toContain(id);
    expect(list).not.toContain(key);
  });

  it('accepts the key as Bearer and as X-API-Key; revocation takes effect on the next request', async () => {
    const { id, key } = createKey(service.dataDir, 'revocable');
    expect((await service.post('/api/image', TINY, { authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await service.post('/api/image', TINY, { 'x-api-key': key })).status).toBe(200);

    expect(cli(service.dataDir, 'keys', 'revoke', id)).toContain('revoked');
    const res = await service.post('/api/image', TINY, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(401);
    expect((await errorOf(res)).code).toBe('unauthorized');
    expect(cli(service.dataDir, 'keys', 'list')).toMatch(new RegExp(`${id}.*revoked`));
  });

  it('a wrong key is 401 even on routes that allow anonymous calls', async () => {
    const attempts: Record<string, string>[] = [
      { authorization: 'Bearer pw_live_nope' },
      { 'x-api-key': 'pw_live_nope' },
    ];
    for (const headers of attempts) {
      const res = await service.post('/api/pdf', TINY, headers);
      expect(res.status).toBe(401);
      expect((await errorOf(res)).code).toBe('unauthorized');
    }
  });

  it('routes other than the sync renders need a key: 401 without, 404 for an unknown route with one', async () => {
    const anonymous = await fetch(`${service.url}/api/jobs`);
    expect(anonymous.status).toBe(401);
    const { key } = createKey(service.dataDir, 'explorer');
    const keyed = await fetch(`${service.url}/api/no-such-thing`, { headers: { authorization: `Bearer ${key}` } });
    expect(keyed.status).toBe(404);
  });

  it('health and readiness need no key', async () => {
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
  });

  it('anonymous bodies are capped at 1 MiB; with a key the 8 MiB limit applies', async () => {
    // Exactly `bytes` long; the padding is a comment, so the page stays quick to lay out.
    const html = (bytes: number) => `<p>hi</p><!--${'x'.repeat(bytes - 16)}-->`;
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${service.url}/api/pdf`, { method: 'POST', headers: { 'content-type': 'text/html', ...headers }, body });
    expect((await post(html(1024 * 1024))).status).toBe(200);
    const over = await post(html(1024 * 1024 + 1));
    expect(over.status).toBe(413);
    expect((await errorOf(over)).code).toBe('payload_too_large');
    const { key } = createKey(service.dataDir, 'big-bodies');
    const keyed = await post(html(1024 * 1024 + 1), { authorization: `Bearer ${key}` });
    expect(keyed.status).toBe(200);
    expect((await bytesOf(keyed)).subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe('anonymous tier switched off', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ auth: { anonymous: false } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('no spelling of a path gets past the key check: other letter case or a trailing slash is refused, never served', async () => {
    const closed = await startTestService({ auth: { anonymous: false, publicOperations: false } });
    try {
      const { key } = createKey(closed.dataDir, 'spelling');
      for (const [method, path] of [
        ['POST', '/API/image'],
        ['POST', '/api/Image'],
        ['POST', '/api/image/'],
        ['GET', '/API/jobs'],
        ['GET', '/api/jobs/'],
        ['GET', '/Metrics'],
        ['GET', '/metrics/'],
        ['GET', '/API/status'],
        ['GET', '/api/status/'],
        ['GET', '/API/monitors'],
      ] as const) {
        const send = (headers: Record<string, string>) =>
          fetch(`${closed.url}${path}`, {
            method,
            headers: { ...headers, ...(method === 'POST' && { 'content-type': 'application/json' }) },
            ...(method === 'POST' && { body: JSON.stringify(TINY) }),
          });
        // Without a key: 401 (under /api/) or 404, never an answer from a route.
        expect([401, 404], `${method} ${path}`).toContain((await send({})).status);
        // With a valid key too, such a spelling names no route at all.
        const keyed = await send({ authorization: `Bearer ${key}` });
        expect(keyed.status, `${method} ${path} with a key`).toBe(404);
        expect((await errorOf(keyed)).code).toBe('not_found');
      }
      // The exact paths are still there, behind the key.
      for (const path of ['/metrics', '/api/status', '/api/jobs'])
        expect((await fetch(`${closed.url}${path}`)).status, path).toBe(401);
    } finally {
      await closed.close();
    }
  });

  it('anonymous renders are 401; keyed renders work', async () => {
    const res = await service.post('/api/image', TINY);
    expect(res.status).toBe(401);
    const { key } = createKey(service.dataDir, 'only-way-in');
    expect((await service.post('/api/image', TINY, { authorization: `Bearer ${key}` })).status).toBe(200);
  });
});

describe('rate limits', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perKeyPerMinute: 60, anonymousPerMinute: 60 } });
  });
  afterAll(async () => {
    await service?.close();
  });

  // Invalid bodies answer 400 at once but still spend a token: a cheap way to use up a budget.
  const spend = (headers: Record<string, string> = {}, on = service) => on.post('/api/pdf', { nope: true }, headers);

  async function exhaust(headers: Record<string, string> = {}, on = service): Promise<Response> {
    for (let i = 0; i < 100; i++) {
      const res = await spend(headers, on);
      if (res.status === 429) return res;
      expect(res.status).toBe(400);
    }
    throw new Error('the budget never ran out');
  }

  it('sends RateLimit-* headers, 429s the request after the budget with Retry-After, and refills', async () => {
    const first = await spend();
    expect(first.headers.get('ratelimit-limit')).toBe('60');
    expect(first.headers.get('ratelimit-remaining')).toBe('59');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);

    const limited = await exhaust();
    expect((await errorOf(limited)).code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    // Allowed again (and still a bad body) once the Retry-After it promised has passed, not much later. A
    // refused request spends nothing, so asking again and again does not delay the next token.
    const limitedAt = Date.now();
    const again = await until(
      'the budget to allow a request again',
      async () => {
        const res = await spend();
        return res.status !== 429 && res;
      },
      retryAfter * 1000 + 5000,
      100,
    );
    expect(again.status).toBe(400);
    expect(Date.now() - limitedAt).toBeLessThan(retryAfter * 1000 + 1000);
  });

  it('budgets are per key and separate from the anonymous one', async () => {
    // 3 a minute: the next token is 20 s away, so a's budget stays spent while b's is tried (at 60 a minute
    // a's next token could come within the two round trips and make this flaky).
    const slow = await startTestService({ rateLimit: { perKeyPerMinute: 3, anonymousPerMinute: 60 } });
    try {
      const a = createKey(slow.dataDir, 'a');
      const b = createKey(slow.dataDir, 'b');
      await exhaust({ authorization: `Bearer ${a.key}` }, slow);
      expect((await spend({ authorization: `Bearer ${b.key}` }, slow)).status).toBe(400);
      expect((await spend({}, slow)).status).toBe(400);
      expect((await spend({ authorization: `Bearer ${a.key}` }, slow)).status).toBe(429);
    } finally {
      await slow.close();
    }
  });
});
