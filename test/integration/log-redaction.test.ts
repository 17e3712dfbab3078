// Logs never hold secrets: API keys (real and unknown ones), cookies, basic-auth passwords, header values, URL query strings
// and userinfo — whatever the request's outcome (200, 400, 422, 504). The service logs at 'trace'
// into memory, through createLogger itself, so the redaction under test is the real one.
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { openSqliteFile } from '../helpers/sqlite-file.js';
import { SyncKeys } from '../helpers/sync-keys.js';
import { createLogger } from '../../src/log.js';
import { startService, type Service } from '../../src/app/serve.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { FIXTURE_EGRESS } from '../helpers/service.js';
import { until } from '../helpers/until.js';

/** Every secret a test sends; none may ever appear in the log. */
const SECRETS = [
  'pw_live_SECRETKEY123',
  'pw_live_SECRETKEY456',
  'SECRETCOOKIE',
  'SECRETPASS',
  'SECRETCOOKIEVALUE',
  'SECRETHEADER',
  'SECRETQUERY',
  'SECRETUSERINFO',
  'SECRET400',
  'SECRETQUERY422',
  'SECRETUSERINFO422',
  'SECRETQUERY504',
  'SECRETSUBRESOURCE',
  'SECRETPDFUSER',
  'SECRETPDFOWNER',
  'SECRETPDF400',
];

interface LogLine {
  level: number;
  msg?: string;
  requestId?: string;
  method?: string;
  path?: string;
  status?: number;
}

describe('log redaction', () => {
  let service: Service;
  let fixture: FixtureServer;
  let dataDir: string;
  let warmPages: number;
  let issued: IssuedKey; // a real key: renders with it pass authentication; it is a secret too
  const chunks: string[] = [];
  const logText = () => chunks.join('');
  const lines = (): LogLine[] =>
    logText()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  /** The secrets of `only` are nowhere in the log; reports the lines that hold one. */
  function expectNoSecrets(only: string[] = [...SECRETS, issued.key, issued.webhookSecret]): void {
    const leaks = logText()
      .split('\n')
      .filter((line) => only.some((s) => line.includes(s)));
    expect(leaks, `log lines holding a secret:\n${leaks.join('\n')}`).toEqual([]);
  }

  /** The request line for `requestId` was logged with method, path and status. */
  function expectRequestLine(requestId: string | null, method: string, path: string, status: number): void {
    expect(requestId).toBeTruthy();
    const line = lines().find((l) => l.msg === 'request' && l.requestId === requestId);
    expect(line, `request line for ${requestId}`).toMatchObject({ method, path, status });
  }

  beforeAll(async () => {
    fixture = await startFixtureServer();
    fixture.route('/attachment', (_req, res: ServerResponse) => {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="x.bin"',
      });
      res.end('x');
    });
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-logtest-'));
    const config = loadConfig({
      env: {},
      overrides: {
        port: 0,
        host: '127.0.0.1',
        dataDir,
        egress: FIXTURE_EGRESS,
        rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
      },
    });
    const logger = createLogger('trace', {
      write: (s: string) => {
        chunks.push(s);
      },
    });
    warmPages = config.render.warmPages;
    service = await startService(config, logger);
    const file = openSqliteFile(dataDir, service.databaseKind);
    issued = new SyncKeys(file.db).create('log-redaction');
    file.close();
  });

  afterAll(async () => {
    await service?.stop();
    await fixture?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('API keys and cookies in request headers are not logged, known (200) or unknown (401)', async () => {
    const unknown = await post(
      '/api/pdf',
      { html: '<p>hello</p>' },
      {
        authorization: 'Bearer pw_live_SECRETKEY123',
        cookie: 'session=SECRETCOOKIE',
      },
    );
    expect(unknown.status).toBe(401);
    expectRequestLine(unknown.headers.get('x-request-id'), 'POST', '/api/pdf', 401);
    const unknownX = await post('/api/pdf', { html: '<p>hello</p>' }, { 'x-api-key': 'pw_live_SECRETKEY456' });
    expect(unknownX.status).toBe(401);

    const keyHeaders: Record<string, string>[] = [
      { authorization: `Bearer ${issued.key}` },
      { 'x-api-key': issued.key },
    ];
    for (const headers of keyHeaders) {
      const res = await post('/api/pdf', { html: '<p>hello</p>' }, { ...headers, cookie: 'session=SECRETCOOKIE' });
      expect(res.status).toBe(200);
      expectRequestLine(res.headers.get('x-request-id'), 'POST', '/api/pdf', 200);
    }
    expectNoSecrets();
  });

  it('credentials in the render options (httpCredentials, cookies, headers) and the URL are not logged', async () => {
    const res = await post('/api/pdf', {
      url: `${fixture.url}/echo-headers?token=SECRETQUERY`,
      httpCredentials: { username: 'u', password: 'SECRETPASS' },
      cookies: [{ name: 'c', value: 'SECRETCOOKIEVALUE', url: fixture.url }],
      headers: { authorization: 'Bearer SECRETHEADER' },
    });
    expect(res.status).toBe(200);
    expect(fixture.requests.some((r) => r.path.includes('SECRETQUERY'))).toBe(true); // the secrets were really used
    expectRequestLine(res.headers.get('x-request-id'), 'POST', '/api/pdf', 200);

    // Credentials in the URL are refused (400): neither that answer nor its log line holds them.
    const userinfo = await post('/api/pdf', {
      url: `http://user:SECRETUSERINFO@127.0.0.1:${fixture.port}/echo-headers`,
    });
    expect(userinfo.status).toBe(400);
    expect(await userinfo.text()).not.toContain('SECRETUSERINFO');
    expectRequestLine(userinfo.headers.get('x-request-id'), 'POST', '/api/pdf', 400);
    expectNoSecrets();
  });

  it('a 400 with a secret in an invalid field does not log it', async () => {
    const res = await post(
      '/api/pdf',
      {
        url: 'ftp://user:SECRET400@example.com/?token=SECRET400',
        cookies: [{ name: 'c', value: 'SECRET400', url: 'not a url SECRET400' }],
        timeout: 'SECRET400',
      },
      { authorization: `Bearer ${issued.key}` },
    );
    expect(res.status).toBe(400);
    expectRequestLine(res.headers.get('x-request-id'), 'POST', '/api/pdf', 400);
    expectNoSecrets();
  });

  it('PDF passwords are not logged: an encrypted render (200), a refused one (400)', async () => {
    const encrypted = await post('/api/pdf', {
      html: '<p>locked</p>',
      encrypt: { userPassword: 'SECRETPDFUSER', ownerPassword: 'SECRETPDFOWNER' },
    });
    expect(encrypted.status).toBe(200);
    const refused = await post('/api/pdf', {
      html: '<p>x</p>',
      pdfa: 'PDF/A-2b',
      encrypt: { userPassword: 'SECRETPDF400', ownerPassword: 'SECRETPDF400'.repeat(20) },
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).not.toContain('SECRETPDF400');
    expectRequestLine(refused.headers.get('x-request-id'), 'POST', '/api/pdf', 400);
    expectNoSecrets();
  });

  it('a failed render (422) of a URL with a secret in its query or userinfo does not log it', async () => {
    // A download is a navigation error: the failure is logged (debug) with its cause.
    const query = await post('/api/pdf', {
      url: `${fixture.url}/attachment?token=SECRETQUERY422`,
      headers: { authorization: 'Bearer SECRETHEADER' },
    });
    expect(query.status).toBe(422);
    expectRequestLine(query.headers.get('x-request-id'), 'POST', '/api/pdf', 422);
    // The API refuses credentials in url: a page that goes to such a URL itself is how they reach a render.
    fixture.route('/to-userinfo-attachment', (_req, res) => {
      res.writeHead(302, { location: `http://user:SECRETUSERINFO422@127.0.0.1:${fixture.port}/attachment` }).end();
    });
    const userinfo = await post('/api/pdf', { url: `${fixture.url}/to-userinfo-attachment` });
    expect(userinfo.status).toBe(422);
    expectRequestLine(userinfo.headers.get('x-request-id'), 'POST', '/api/pdf', 422);
    // The failure itself was logged (so this test looks at a line that could leak).
    expect(lines().some((l) => l.level === 20 && l.requestId === query.headers.get('x-request-id'))).toBe(true);
    expectNoSecrets(['SECRETQUERY422', 'SECRETUSERINFO422', 'SECRETHEADER']);
  });

  it('a render timeout (504) with a secret in the URL does not log it', async () => {
    const res = await post(
      '/api/pdf',
      {
        url: `${fixture.url}/slow?ms=5000&token=SECRETQUERY504`,
        timeout: 1000,
        cookies: [{ name: 'c', value: 'SECRETCOOKIEVALUE' }],
      },
      { 'x-api-key': issued.key },
    );
    expect(res.status).toBe(504);
    expectRequestLine(res.headers.get('x-request-id'), 'POST', '/api/pdf', 504);
    expectNoSecrets(['SECRETQUERY504', 'SECRETCOOKIEVALUE', issued.key]);
  });

  it('a sub-resource refused by the egress policy is not logged with its query', async () => {
    // 10.255.255.1 is private: the egress proxy refuses it and logs the refusal (debug).
    const res = await post('/api/pdf', {
      html: '<p>img</p><img src="http://10.255.255.1/pixel.png?token=SECRETSUBRESOURCE">',
    });
    expect(res.status).toBe(200);
    expect(lines().some((l) => l.msg === 'egress blocked')).toBe(true);
    expectNoSecrets(['SECRETSUBRESOURCE']);
  });

  it('after everything (and the late logs of discarded pages): request lines everywhere, no secret anywhere', async () => {
    // Pages thrown away after the 504 are wiped or closed and replaced in the background: once the warm
    // pool is full and idle again, that is over and its log lines are written.
    await until(
      () => `the warm pool to refill (${service.browsers.stats().warmPages} of ${warmPages} idle)`,
      () => service.limiter.activeCount === 0 && service.browsers.stats().warmPages === warmPages,
      10_000,
    );
    const requests = lines().filter((l) => l.msg === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(11);
    for (const l of requests) {
      expect(l.requestId).toMatch(/^[\w.:-]+$/);
      expect(l.method).toBe('POST');
      expect(l.path).toBe('/api/pdf'); // the path only: never the query
      expect(typeof l.status).toBe('number');
    }
    expectNoSecrets();
  });
});
