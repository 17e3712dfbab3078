// A url_blocked answer says only that the address is not allowed by the egress policy: never what a
// name resolved to, nor where a redirect led. The reason goes to the service log, with the request id.
// The service logs at 'info' (its default level) into memory, through createLogger itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { openSqliteFile } from '../helpers/sqlite-file.js';
import { SyncKeys } from '../helpers/sync-keys.js';
import { createLogger } from '../../src/log.js';
import { startService, type Service } from '../../src/app/serve.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { until } from '../helpers/until.js';

interface LogLine {
  level: number;
  msg?: string;
  requestId?: string;
  code?: string;
  reason?: string;
}
interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
  requestId: string;
}

/** Whatever would tell the caller about the internal network. */
const REVEALING = /127\.0\.0\.1|::1|resolves|public address|led to|localhost|denyHosts/;

describe('url_blocked answers and their log lines', () => {
  let service: Service;
  let site: FixtureServer;
  let dataDir: string;
  let key: string;
  const chunks: string[] = [];
  const lines = (): LogLine[] =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);

  beforeAll(async () => {
    site = await startFixtureServer();
    site.route('/to-loopback', (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${site.port}/secret?token=SECRETQ` }).end();
    });
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-egressmsg-'));
    // Only the NAME localhost is allowed, so 127.0.0.1 (and the names denied below) are refused.
    const config = loadConfig({
      env: {},
      overrides: {
        port: 0,
        host: '127.0.0.1',
        dataDir,
        logLevel: 'info',
        egress: { allowPrivate: false, allowHosts: ['localhost'], denyHosts: ['internal.test'] },
        rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
      },
    });
    service = await startService(
      config,
      createLogger('info', {
        write: (s: string) => {
          chunks.push(s);
        },
      }),
    );
    const file = openSqliteFile(dataDir, service.databaseKind);
    key = new SyncKeys(file.db).create('egress-messages').key;
    file.close();
  });
  afterAll(async () => {
    await service?.stop();
    await site?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const send = (method: string, path: string, body: unknown, withKey: boolean) =>
    fetch(`${service.url}${path}`, {
      method,
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(withKey && { authorization: `Bearer ${key}` }) },
    });

  /** The answer is the generic refusal; the log line under its request id holds the reason. */
  async function expectQuietRefusal(res: Response, status: number, code: string, logged: RegExp): Promise<ErrorBody> {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    expect(text).not.toMatch(REVEALING);
    const body = JSON.parse(text) as ErrorBody;
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(/not allowed by the egress policy/);
    const line = await until(`the log line of ${body.requestId}`, () =>
      lines().find((l) => l.requestId === body.requestId && l.reason !== undefined),
    );
    expect(line).toMatchObject({ code });
    expect(line.reason).toMatch(logged);
    return body;
  }

  it('a loopback address, anonymously: 403 without the address; the log names it', async () => {
    await expectQuietRefusal(
      await send('POST', '/api/pdf', { url: `http://127.0.0.1:${site.port}/` }, false),
      403,
      'url_blocked',
      /127\.0\.0\.1 is not a public address/,
    );
  });

  it('a denied name: 403 without naming the setting that refused it', async () => {
    await expectQuietRefusal(
      await send('POST', '/api/image', { url: 'http://internal.test/' }, false),
      403,
      'url_blocked',
      /internal\.test is in egress\.denyHosts/,
    );
  });

  it('a redirect to a refused address: 403 without where it led; the log says where (query scrubbed)', async () => {
    await expectQuietRefusal(
      await send('POST', '/api/pdf', { url: `http://localhost:${site.port}/to-loopback` }, false),
      403,
      'url_blocked',
      new RegExp(`led to http://127\\.0\\.0\\.1:${site.port}/secret\\?\\[redacted\\]`),
    );
    expect(chunks.join('')).not.toContain('SECRETQ');
  });

  it('an async job and a monitor with a refused url: 403 without the address', async () => {
    await expectQuietRefusal(
      await send('POST', '/api/pdf', { url: `http://127.0.0.1:${site.port}/`, async: true }, true),
      403,
      'url_blocked',
      /127\.0\.0\.1 is not a public address/,
    );
    await expectQuietRefusal(
      await send('POST', '/api/monitors', { url: `http://127.0.0.1:${site.port}/`, schedule: '0 0 1 1 *' }, true),
      403,
      'url_blocked',
      /127\.0\.0\.1 is not a public address/,
    );
  });

  it('a refused webhookUrl (job or monitor): 400 on the field, its detail without the reason', async () => {
    for (const path of ['/api/pdf', '/api/monitors']) {
      const body =
        path === '/api/pdf'
          ? { html: '<p>x</p>', async: true, webhookUrl: `http://127.0.0.1:${site.port}/hook` }
          : {
              url: `http://localhost:${site.port}/`,
              schedule: '0 0 1 1 *',
              paused: true,
              webhookUrl: `http://127.0.0.1:${site.port}/hook`,
            };
      const refused = await expectQuietRefusal(
        await send('POST', path, body, true),
        400,
        'invalid_request',
        /127\.0\.0\.1 is not a public address/,
      );
      expect(refused.error.details).toEqual([{ path: 'webhookUrl', message: 'not allowed by the egress policy' }]);
    }
  });
});
