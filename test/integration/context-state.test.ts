// State Chromium keeps per browser context that no CDP call clears: HSTS and NEL/Report-To. A warm page
// whose context received one of those headers over https must be replaced, not wiped (WarmPage.keepsState,
// WarmPool.release). Engine-level, with real Chromium: the service's fixtures are plain http on IP
// addresses, and Chromium records HSTS only for a host name, over https without certificate errors. So
// this file makes a self-signed certificate for `hsts.test`, tells Chromium to trust it by its SPKI hash
// and to resolve `hsts.test` to 127.0.0.1 (launch flags of this test only; the service has no such option).
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Request } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { decideSandbox } from '../../src/render/browser/sandbox.js';
import { WarmPage } from '../../src/render/browser/warm-page.js';
import { WarmPool } from '../../src/render/browser/warm-pool.js';
import { until } from '../helpers/until.js';

const HOST = 'hsts.test';

let dir: string;
let browser: Browser;
let tlsServer: https.Server;
let certServer: https.Server;
let plainServer: http.Server;
let tlsPort: number;
let certPort: number;
let plainPort: number;
/** Paths the plain http server answered. */
const plainSeen: string[] = [];
/** Per request to /client-cert: whether the client presented a certificate. */
const clientCerts: boolean[] = [];
/** TLS handshakes the client-certificate server completed. */
let certHandshakes = 0;

async function listen(server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closeServer(server: http.Server | https.Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-hsts-'));
  execFileSync(
    'openssl',
    // prettier-ignore
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    { stdio: 'pipe' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'));
  const key = readFileSync(join(dir, 'key.pem'));
  const spki = createHash('sha256')
    .update(new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

  tlsServer = https.createServer({ cert, key }, (req, res) => {
    const headers: Record<string, string> = { 'content-type': 'text/html', 'cache-control': 'no-store' };
    const nel = JSON.stringify({ report_to: 'default', max_age: 3600 });
    const reportTo = JSON.stringify({
      group: 'default',
      max_age: 3600,
      endpoints: [{ url: `https://${HOST}:${tlsPort}/reports` }],
    });
    const path = req.url ?? '';
    if (path === '/hsts') headers['strict-transport-security'] = 'max-age=3600';
    if (path === '/nel' || path === '/nel-only') headers['nel'] = nel;
    if (path === '/nel' || path === '/report-to-only') headers['report-to'] = reportTo;
    res.writeHead(200, headers);
    res.end(`<p>${path}</p>`);
  });
  certServer = https.createServer({ cert, key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    if (req.url === '/client-cert') {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      clientCerts.push(Object.keys(peer).length > 0);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<p>client cert</p>');
  });
  certServer.on('secureConnection', () => certHandshakes++);
  plainServer = http.createServer((req, res) => {
    plainSeen.push(req.url ?? '');
    const headers: Record<string, string> = { 'content-type': 'text/html' };
    // Over http these mean nothing (to Chromium, and so to WarmPage).
    if (req.url?.startsWith('/hsts')) headers['strict-transport-security'] = 'max-age=3600';
    res.writeHead(200, headers);
    res.end('<p>plain</p>');
  });
  // An HSTS upgrade keeps the port: the TLS handshake reaches this server, which drops it, so the
  // upgraded navigation fails at once (ERR_SSL_PROTOCOL_ERROR) instead of hanging.
  plainServer.on('clientError', (_err, socket) => socket.destroy());
  [tlsPort, certPort, plainPort] = await Promise.all([listen(tlsServer), listen(certServer), listen(plainServer)]);

  browser = await chromium.launch({
    executablePath: findChromium(''),
    chromiumSandbox: decideSandbox('auto', process.getuid?.()).enabled,
    args: [`--ignore-certificate-errors-spki-list=${spki}`, `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
  });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([closeServer(tlsServer), closeServer(certServer), closeServer(plainServer)]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const tls = (path: string) => `https://${HOST}:${tlsPort}${path}`;

/**
 * Navigates to http://hsts.test:<plain port><path> (a path unique to the call). `schemes` are the
 * schemes of the requests the browser made for it, in order: ['http:'] when it went out as is,
 * ['http:', 'https:'] when HSTS upgraded it (a 307 "Internal Redirect", non-authoritative-reason HSTS).
 * `served`: the plain http server answered it.
 */
async function visitPlain(page: Page, path: string): Promise<{ schemes: string[]; served: boolean }> {
  const schemes: string[] = [];
  const onRequest = (r: Request) => {
    const url = new URL(r.url());
    if (url.pathname === path) schemes.push(url.protocol);
  };
  page.on('request', onRequest);
  try {
    // An upgraded navigation fails (see clientError above); what it did is in `schemes` and `served`.
    const failed = await page.goto(`http://${HOST}:${plainPort}${path}`, { timeout: 5000 }).then(
      () => false,
      () => true,
    );
    // goto rejects before Chromium commits its error page; a wipe started before that commit has its
    // own navigation interrupted, fails, and the pool replaces the page for that reason instead.
    if (failed) await until('the error page', () => page.url().startsWith('chrome-error:'), 5000);
  } finally {
    page.off('request', onRequest);
  }
  return { schemes, served: plainSeen.includes(path) };
}

const NOT_UPGRADED = { schemes: ['http:'], served: true };
const UPGRADED = { schemes: ['http:', 'https:'], served: false };

describe('context state no wipe clears (HSTS, NEL)', () => {
  // The positive control: without it, "not upgraded" below could mean Chromium never recorded HSTS.
  it('Chromium records HSTS from hsts.test in a context, and not from a response over plain http', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`http://${HOST}:${plainPort}/hsts-over-http`);
      expect(await visitPlain(page, '/control-before')).toEqual(NOT_UPGRADED);
      expect((await page.goto(tls('/hsts')))?.headers()['strict-transport-security']).toBe('max-age=3600');
      expect(await visitPlain(page, '/control-after')).toEqual(UPGRADED);
      // Another context never saw the header.
      const other = await browser.newContext();
      try {
        expect(await visitPlain(await other.newPage(), '/control-other')).toEqual(NOT_UPGRADED);
      } finally {
        await other.close();
      }
    } finally {
      await context.close();
    }
  });

  it.each([
    ['/hsts', /strict-transport-security/],
    ['/nel', /nel|report-to/],
    ['/nel-only', /nel/],
    ['/report-to-only', /report-to/],
  ])('a warm page that got %s over https keeps state (%s)', async (path, reason) => {
    const warm = await WarmPage.create(browser);
    try {
      expect(warm.keepsState).toBeUndefined();
      expect((await warm.page.goto(tls(path)))?.status()).toBe(200);
      expect(warm.keepsState).toEqual(expect.stringMatching(reason));
    } finally {
      await warm.close();
    }
  });

  it('a warm page that got no such header, or got it over plain http, keeps none', async () => {
    const warm = await WarmPage.create(browser);
    try {
      expect((await warm.page.goto(tls('/plain')))?.status()).toBe(200);
      expect((await warm.page.goto(`http://${HOST}:${plainPort}/hsts-plain-page`))?.status()).toBe(200);
      expect(warm.keepsState).toBeUndefined();
    } finally {
      await warm.close();
    }
  });

  describe('in the pool', () => {
    let pool: WarmPool;
    /** The page a test holds (a pool of one): given back after each test, even a failed one. */
    let held: WarmPage | undefined;
    beforeAll(() => {
      pool = new WarmPool(browser, 1, 1000, createLogger('silent'));
    });
    afterEach(() => {
      if (held) pool.release(held, true);
      held = undefined;
    });
    afterAll(async () => {
      await pool?.close();
    });

    async function take(): Promise<WarmPage> {
      held = await pool.take();
      return held;
    }
    /** Gives the page back, as after a render, and takes the next one. */
    async function cycle(page: WarmPage): Promise<WarmPage> {
      held = undefined;
      pool.release(page, true);
      return take();
    }

    it('a page whose context got HSTS is replaced: the next page does not upgrade http', async () => {
      const first = await take();
      const created = pool.createdCount;
      await first.page.goto(tls('/hsts'));
      expect(await visitPlain(first.page, '/pool-hsts-before-release')).toEqual(UPGRADED);
      const next = await cycle(first);
      expect(next).not.toBe(first);
      expect(pool.createdCount).toBe(created + 1);
      expect(await visitPlain(next.page, '/pool-hsts-next')).toEqual(NOT_UPGRADED);
    });

    it('a page that got no such header is wiped and handed out again', async () => {
      const first = await take();
      const created = pool.createdCount;
      await first.page.goto(tls('/plain'));
      const next = await cycle(first);
      expect(next).toBe(first);
      expect(pool.createdCount).toBe(created);
    });

    // Chromium also remembers per context which client certificate (here: none) it chose for a host,
    // and no call clears that. It is harmless: a warm context is never given a certificate, so the
    // remembered choice is always "none", which is what a fresh context sends. So no replacement.
    it('the client-certificate choice is not a reason to replace a page', async () => {
      const first = await take();
      const created = pool.createdCount;
      const before = clientCerts.length;
      await first.page.goto(`https://${HOST}:${certPort}/client-cert`);
      const next = await cycle(first);
      expect(next).toBe(first);
      expect(pool.createdCount).toBe(created);
      // A new handshake, so the second visit goes through the remembered choice, not the open connection.
      certServer.closeAllConnections();
      const handshakes = certHandshakes;
      await next.page.goto(`https://${HOST}:${certPort}/client-cert`);
      expect(certHandshakes).toBeGreaterThan(handshakes);
      expect(next.keepsState).toBeUndefined();
      expect(clientCerts.slice(before)).toEqual([false, false]);
    });
  });
});
