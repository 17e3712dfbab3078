// A page that cannot be loaded is said in words — connection refused, host not found, TLS failure, timed
// out, too many redirects, blocked by the egress policy — in the render API, async jobs and monitor
// captures, with the raw codes (Chromium's net::ERR_… and the egress proxy's reason) kept for developers:
// in `details` of an answer, at the end of a stored job's or capture's message. Every origin is a real
// local server on 127.0.0.x; the service allows 127.0.0.1 only, so 127.0.0.2 is refused by the policy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureNow } from '../helpers/capture-now.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let key: string;
let certDir: string;
const servers: net.Server[] = [];
let closedPort: number; // nothing listens here
let tlsPort: number; // https with a self-signed certificate
let silentPort: number; // accepts connections and never answers
let web: number; // /loop redirects to itself; /to-nowhere to a name that does not resolve; /to-private to 127.0.0.2
let privatePort: number; // a server on 127.0.0.2, which the policy refuses

async function listen<T extends net.Server>(server: T, host = '127.0.0.1'): Promise<number> {
  server.listen(0, host);
  await new Promise((done) => server.once('listening', done));
  servers.push(server);
  return (server.address() as net.AddressInfo).port;
}

/** Whatever would tell the caller about the internal network in a url_blocked answer. */
const REVEALING = /127\.0\.0\.2|resolves|public address|led to|denyHosts/;

beforeAll(async () => {
  svc = await startTestService();
  key = svc.createKey('network-errors').key;
  const closed = net.createServer();
  closed.listen(0, '127.0.0.1');
  await new Promise((done) => closed.once('listening', done));
  closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise((done) => closed.close(done));

  certDir = mkdtempSync(join(tmpdir(), 'pagewatch-tls-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ]),
    { stdio: 'ignore' },
  );
  const tls = https.createServer(
    { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) },
    (_req, res) => res.end('<p>secret page</p>'),
  );
  tls.on('tlsClientError', () => undefined); // Chromium hangs up on the untrusted certificate
  tlsPort = await listen(tls);
  silentPort = await listen(net.createServer((socket) => socket.on('error', () => undefined)));
  privatePort = await listen(
    http.createServer((_req, res) => res.end('private')),
    '127.0.0.2',
  );
  web = await listen(
    http.createServer((req, res) => {
      if (req.url === '/ok') return void res.end('<p>a page that loads</p>');
      if (req.url === '/empty-500') return void res.writeHead(500).end();
      if (req.url === '/missing')
        return void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>no such page</p>');
      const to: Record<string, string> = {
        '/loop': '/loop',
        '/to-nowhere': 'http://nowhere.invalid/',
        '/to-private': `http://127.0.0.2:${privatePort}/`,
        '/to-closed': `http://127.0.0.1:${closedPort}/`,
      };
      res.writeHead(302, { location: to[req.url ?? ''] ?? '/loop' }).end();
    }),
  );
});
afterAll(async () => {
  await svc?.close();
  for (const s of servers) s.close();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

const render = (body: Record<string, unknown>) => svc.post('/api/pdf', body);

async function failure(res: Response, status: number, code: string) {
  const text = await res.clone().text();
  expect(res.status, text).toBe(status);
  const error = await errorOf(res);
  expect(error.code).toBe(code);
  return error;
}

describe('the render API says why a page could not be loaded', () => {
  it('nothing listening (http and https): "connection refused", the raw codes in details', async () => {
    const plain = await failure(await render({ url: `http://127.0.0.1:${closedPort}/` }), 422, 'render_failed');
    expect(plain.message).toBe(
      `Connection refused: nothing is listening at 127.0.0.1:${closedPort}; check the URL's host and port, and that the site is running.`,
    );
    expect(plain.details).toEqual([
      { path: 'url', message: 'net::ERR_HTTP_RESPONSE_CODE_FAILURE (egress proxy: ECONNREFUSED)' },
    ]);
    const secure = await failure(await render({ url: `https://127.0.0.1:${closedPort}/` }), 422, 'render_failed');
    expect(secure.message).toMatch(/^Connection refused: nothing is listening at 127\.0\.0\.1:\d+;/);
    expect(secure.details).toEqual([
      { path: 'url', message: 'net::ERR_TUNNEL_CONNECTION_FAILED (egress proxy: ECONNREFUSED)' },
    ]);
    // A redirect to it reads the same, naming where it led (the caller's own, allowed, address).
    const hop = await failure(await render({ url: `http://127.0.0.1:${web}/to-closed` }), 422, 'render_failed');
    expect(hop.message).toMatch(
      new RegExp(`^Connection refused: nothing is listening at 127\\.0\\.0\\.1:${closedPort};`),
    );
  });

  it('a name that does not resolve (.invalid), asked for or redirected to: "host not found", not "blocked"', async () => {
    const direct = await failure(await render({ url: 'http://nowhere.invalid/' }), 422, 'render_failed');
    expect(direct.message).toBe(
      'Host not found: nowhere.invalid does not resolve to an address; check the spelling of the URL.',
    );
    expect(direct.details).toEqual([{ path: 'url', message: 'ENOTFOUND (nowhere.invalid could not be resolved)' }]);
    const hop = await failure(await render({ url: `http://127.0.0.1:${web}/to-nowhere` }), 422, 'render_failed');
    expect(hop.message).toMatch(/^Host not found: nowhere\.invalid does not resolve/);
    expect(hop.details).toEqual([
      { path: 'url', message: 'net::ERR_HTTP_RESPONSE_CODE_FAILURE (egress proxy: ENOTFOUND)' },
    ]);
  });

  it('a self-signed certificate: "TLS failure" (HTTPS errors are not ignored)', async () => {
    const error = await failure(await render({ url: `https://127.0.0.1:${tlsPort}/` }), 422, 'render_failed');
    expect(error.message).toBe(
      `TLS failure: the certificate of 127.0.0.1:${tlsPort} is not signed by a trusted authority (self-signed?); fix the site's certificate or use its http:// address.`,
    );
    expect(error.details).toEqual([{ path: 'url', message: 'net::ERR_CERT_AUTHORITY_INVALID' }]);
  });

  it('a server that never answers: 504 "timed out", naming the site and the timeout in seconds', async () => {
    const error = await failure(
      // Long enough that, on a busy machine, the request has surely reached the site before the time is up.
      await render({ url: `http://127.0.0.1:${silentPort}/`, timeout: 5000 }),
      504,
      'render_timeout',
    );
    expect(error.message).toBe(
      `Timed out: 127.0.0.1:${silentPort} did not send its page within the render's timeout of 5 s; check that the site answers, or raise timeout (in milliseconds, now 5000).`,
    );
  });

  it('a redirect loop: "too many redirects"', async () => {
    const error = await failure(await render({ url: `http://127.0.0.1:${web}/loop` }), 422, 'render_failed');
    expect(error.message).toBe(
      `Too many redirects: http://127.0.0.1:${web}/loop kept redirecting (a redirect loop); check the site's redirects and the cookies it needs.`,
    );
    expect(error.details).toEqual([{ path: 'url', message: 'net::ERR_TOO_MANY_REDIRECTS' }]);
  });

  it('an error status: with a page, "answered HTTP 404"; empty, "nothing to render" (not a network failure)', async () => {
    const missing = await failure(await render({ url: `http://127.0.0.1:${web}/missing` }), 422, 'render_failed');
    expect(missing.message).toBe(
      'The page answered HTTP 404: check the URL, or set failOnHttpError: false to render it anyway.',
    );
    const empty = await failure(await render({ url: `http://127.0.0.1:${web}/empty-500` }), 422, 'render_failed');
    expect(empty.message).toBe(
      'The page answered HTTP 500 with an empty body, so there is nothing to render; check the URL.',
    );
    expect(empty.details).toEqual([{ path: 'url', message: 'net::ERR_HTTP_RESPONSE_CODE_FAILURE' }]);
  });

  it('blocked by the egress policy, asked for or redirected to: still 403 url_blocked, no address told', async () => {
    for (const url of [`http://127.0.0.2:${privatePort}/`, `http://127.0.0.1:${web}/to-private`]) {
      const res = await render({ url });
      const text = await res.clone().text();
      expect(text).not.toMatch(REVEALING);
      const error = await failure(res, 403, 'url_blocked');
      expect(error.message).toMatch(/^The URL is not allowed by the egress policy: /);
      expect(error.details).toBeUndefined();
    }
  });
});

describe('async jobs and monitor captures keep the words and the raw code', () => {
  it('a job to a closed port fails with "connection refused (net::…)"', async () => {
    const res = await svc.call('POST', '/api/pdf', key, { url: `http://127.0.0.1:${closedPort}/`, async: true });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const job = await until('the job to fail', async () => {
      const j = (await (await svc.call('GET', `/api/jobs/${id}`, key)).json()) as {
        status: string;
        error?: { code: string; message: string };
      };
      return j.status === 'failed' && j;
    });
    expect(job.error).toEqual({
      code: 'render_failed',
      message: `Connection refused: nothing is listening at 127.0.0.1:${closedPort}; check the URL's host and port, and that the site is running (net::ERR_HTTP_RESPONSE_CODE_FAILURE (egress proxy: ECONNREFUSED)).`,
    });
  });

  it('a monitor whose site has a self-signed certificate records a capture failed with "TLS failure"', async () => {
    const created = await svc.call('POST', '/api/monitors', key, {
      url: `https://127.0.0.1:${tlsPort}/`,
      schedule: '0 0 1 1 *',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const capture = await captureNow(svc, key, id);
    expect(capture.status).toBe('failed');
    expect(capture.error?.code).toBe('render_failed');
    expect(capture.error?.message).toMatch(
      /^TLS failure: the certificate of 127\.0\.0\.1:\d+ is not signed by a trusted authority .*\(net::ERR_CERT_AUTHORITY_INVALID\)\.$/,
    );
  });

  it('a step that goes to a closed port fails naming the step, in the same words', async () => {
    const created = await svc.call('POST', '/api/monitors', key, {
      url: `http://127.0.0.1:${web}/ok`,
      schedule: '0 0 1 1 *',
      capture: { steps: [{ action: 'goto', value: `https://127.0.0.1:${closedPort}/login` }] },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const capture = await captureNow(svc, key, id);
    expect(capture.status).toBe('failed');
    expect(capture.error?.message).toBe(
      `step 0 (goto "https://127.0.0.1:${closedPort}/login"): Connection refused: nothing is listening at ` +
        `127.0.0.1:${closedPort}; check the URL's host and port, and that the site is running.`,
    );
  });
});
