// The egress proxy inside the real service: it serves the service's own Chromium and nobody else, and
// bad input from a local process neither crashes the service nor stops it rendering. The service runs
// in this test process, so "another local process" must really be one: curl and node children.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng } from '../helpers/png.js';
import { rawStatus } from '../helpers/raw-proxy.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const run = promisify(execFile);
let svc: TestService;
let fixture: FixtureServer;
let proxyPort: number;

beforeAll(async () => {
  [svc, fixture] = await Promise.all([startTestService(), startFixtureServer()]);
  proxyPort = Number(new URL(svc.proxyUrl).port);
  fixture.route('/green', (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><body style="margin:0"><img src="/green.svg" style="display:block;width:40px;height:40px"></body>',
      );
  });
  fixture.route('/green.svg', (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'image/svg+xml' })
      .end(
        '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="rgb(0,200,0)"/></svg>',
      );
  });
}, 60_000);
afterAll(async () => {
  await Promise.all([svc?.close(), fixture?.close()]);
});

/** A render whose page and sub-resource both come through the proxy: the green square must show. */
async function rendersThroughProxy(): Promise<void> {
  const res = await svc.post('/api/image', { url: `${fixture.url}/green`, viewport: { width: 60, height: 60 } });
  expect(res.status, await res.clone().text()).toBe(200);
  const png = decodePng(await bytesOf(res));
  expect(png.pixel(20, 20)).toEqual({ r: 0, g: 200, b: 0, a: 255 });
}

describe('bad input from a local process', () => {
  it.each([
    'CONNECT 8.8.8.8:99999 HTTP/1.1\r\n\r\n',
    'CONNECT 8.8.8.8:0 HTTP/1.1\r\n\r\n',
    'GET http://8.8.8.8:0/ HTTP/1.1\r\nHost: 8.8.8.8\r\n\r\n',
    '\x00\x01 not http at all\r\n\r\n',
  ])('%j → 400, and the service still renders', async (line) => {
    expect(await rawStatus(proxyPort, line)).toBe(400);
    await rendersThroughProxy();
  });
});

describe('only our own Chromium may use the proxy', () => {
  it('the browser gets through: an http page with a sub-resource renders', async () => {
    fixture.requests.length = 0;
    await rendersThroughProxy();
    expect(fixture.requests.map((r) => r.path)).toEqual(['/green', '/green.svg']);
  });

  it('the browser gets through a CONNECT tunnel: an https origin receives its TLS hello', async () => {
    const hellos: Buffer[] = [];
    const tls = net.createServer((s) => {
      s.once('data', (d: Buffer) => {
        hellos.push(d);
        s.destroy();
      });
      s.on('error', () => undefined);
    });
    tls.listen(0, '127.0.0.1');
    await new Promise((done) => tls.once('listening', done));
    try {
      const { port } = tls.address() as net.AddressInfo;
      // The page cannot load (this origin speaks no TLS back); what matters is that the bytes arrived.
      await svc.post('/api/pdf', { url: `https://127.0.0.1:${port}/`, timeout: 10_000 }).then((r) => r.arrayBuffer());
      await until('a TLS ClientHello at the https origin', () => hellos.length > 0, 30_000);
      expect(hellos[0]![0]).toBe(0x16); // TLS handshake record
    } finally {
      tls.close();
    }
  });

  it('curl, another local process, gets 407 for http and for a CONNECT, and reaches nothing', async () => {
    fixture.requests.length = 0;
    const curl = (url: string) =>
      run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code} %{http_connect}', '-x', svc.proxyUrl, url]).then(
        (r) => r.stdout,
        (err: { stdout?: string }) => err.stdout ?? '',
      );
    expect(await curl(`${fixture.url}/green`)).toBe('407 000');
    expect(await curl(`https://127.0.0.1:${fixture.port}/green`)).toBe('000 407');
    expect(fixture.requests).toEqual([]);
  });

  it.skipIf(process.geteuid?.() !== 0)('curl as another user (nobody) gets 407 too', async () => {
    const { stdout } = await run('runuser', [
      '-u',
      'nobody',
      '--',
      'curl',
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '-x',
      svc.proxyUrl,
      `${fixture.url}/green`,
    ]).catch((err: { stdout: string }) => err);
    expect(stdout).toBe('407');
  });

  it('a node child process gets 407 too, and the browser still gets through afterwards', async () => {
    const script = `
      const s = require('net').connect(${proxyPort}, '127.0.0.1', () => s.write('CONNECT 127.0.0.1:${fixture.port} HTTP/1.1\\r\\n\\r\\n'));
      s.once('data', (d) => { process.stdout.write(String(d).split('\\r\\n')[0]); s.destroy(); });`;
    const { stdout } = await run(process.execPath, ['-e', script]);
    expect(stdout).toBe('HTTP/1.1 407 Proxy Authentication Required');
    fixture.requests.length = 0;
    await rendersThroughProxy();
    expect(fixture.requests).toHaveLength(2);
  });
});
