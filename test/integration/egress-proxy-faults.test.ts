// The egress proxy on its own, with real sockets, facing broken and hostile clients and origins. The
// client check is set to pass (it is tested with a real browser in egress-proxy.test.ts) so that
// tunnels and forwards really happen. Nothing here may crash the process: vitest fails a run on an
// unhandled rejection or an uncaught exception, and every test ends by using the proxy again.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressPolicy } from '../../src/egress/policy.js';
import { EgressProxy } from '../../src/egress/proxy.js';
import { rawSend, rawStatus } from '../helpers/raw-proxy.js';
import { until } from '../helpers/until.js';

let proxy: EgressProxy;
let proxyPort: number;
let echo: net.Server; // a TCP origin that echoes, and records its connections' lifetimes
const echoSockets: net.Socket[] = [];
let resetter: net.Server; // a TCP origin that resets every connection at once
let web: http.Server; // an HTTP origin: /ok answers, /reset-mid-body resets after the headers
let deadPort: number; // nothing listens here

const portOf = (server: net.Server) => (server.address() as net.AddressInfo).port;
const listen = async <T extends net.Server>(server: T) => {
  server.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  return server;
};

beforeAll(async () => {
  proxy = new EgressProxy(new EgressPolicy({ allowPrivate: false, allowHosts: ['127.0.0.1'], denyHosts: [] }), {
    isOwnBrowser: () => Promise.resolve(true),
  });
  await proxy.start();
  proxyPort = Number(new URL(proxy.url).port);
  echo = await listen(
    net.createServer((s) => {
      echoSockets.push(s);
      s.on('error', () => undefined);
      s.pipe(s);
    }),
  );
  resetter = await listen(net.createServer((s) => s.resetAndDestroy()));
  web = await listen(
    http.createServer((req, res) => {
      if (req.url === '/reset-mid-body') {
        res.writeHead(200, { 'content-length': '100000' });
        res.write('partial', () => req.socket.resetAndDestroy());
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('origin-ok');
    }),
  );
  const closed = await listen(net.createServer());
  deadPort = portOf(closed);
  await new Promise((done) => closed.close(done));
});
afterAll(async () => {
  await proxy?.stop();
  for (const s of [echo, resetter, web]) s?.close();
});

/** The proxy still works: a tunnel to the echo origin carries bytes both ways. */
async function proxyStillTunnels(): Promise<void> {
  const conv = await rawSend(proxyPort, `CONNECT 127.0.0.1:${portOf(echo)} HTTP/1.1\r\n\r\n`);
  await until('the tunnel to be established', () => conv.received().toString().startsWith('HTTP/1.1 200'), 30_000);
  conv.socket.write('ping-through-tunnel');
  await until('the echo through the tunnel', () => conv.received().toString().endsWith('ping-through-tunnel'), 30_000);
  conv.socket.destroy();
}

describe('bad ports are 400, not a crash', () => {
  it.each([
    'CONNECT 8.8.8.8:99999 HTTP/1.1\r\n\r\n',
    'CONNECT 8.8.8.8:65536 HTTP/1.1\r\n\r\n',
    'CONNECT 8.8.8.8:0 HTTP/1.1\r\n\r\n',
    'CONNECT 8.8.8.8:00000 HTTP/1.1\r\n\r\n',
    'CONNECT [::1]:70000 HTTP/1.1\r\n\r\n',
    'GET http://127.0.0.1:0/ HTTP/1.1\r\nHost: 127.0.0.1:0\r\n\r\n',
    'GET http://127.0.0.1:99999/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  ])('%j → 400', async (line) => {
    expect(await rawStatus(proxyPort, line)).toBe(400);
    await proxyStillTunnels();
  });

  it('the edges 1 and 65535 are valid ports (answered 502 here: nothing listens, rather than 400)', async () => {
    expect(await rawStatus(proxyPort, 'CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n')).toBe(502);
    expect(await rawStatus(proxyPort, 'CONNECT 127.0.0.1:65535 HTTP/1.1\r\n\r\n')).not.toBe(400);
    expect(await rawStatus(proxyPort, `GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe(502);
  });
});

describe('broken clients and origins', () => {
  it('garbage instead of HTTP → 400', async () => {
    expect(await rawStatus(proxyPort, '\x16\x03\x01garbage\r\n\r\n')).toBe(400);
    expect(await rawStatus(proxyPort, 'CONNECT\r\n\r\n')).toBe(400);
    expect(await rawStatus(proxyPort, 'CONNECT nohost HTTP/1.1\r\n\r\n')).toBe(400);
    await proxyStillTunnels();
  });

  it('an origin that refuses the connection → 502 (CONNECT and forward)', async () => {
    expect(await rawStatus(proxyPort, `CONNECT 127.0.0.1:${deadPort} HTTP/1.1\r\n\r\n`)).toBe(502);
    expect(await rawStatus(proxyPort, `GET http://127.0.0.1:${deadPort}/ HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe(502);
    await proxyStillTunnels();
  });

  it('an origin that resets the tunnel: the client is cut', async () => {
    const conv = await rawSend(proxyPort, `CONNECT 127.0.0.1:${portOf(resetter)} HTTP/1.1\r\n\r\n`);
    await until('the client connection to end', () => conv.closed(), 30_000);
    // Either the reset came before the tunnel was up (502) or after (cut): never a crash or a hang.
    expect(conv.received().toString()).toMatch(/^(HTTP\/1\.1 (200|502)|$)/);
    await proxyStillTunnels();
  });

  it('a client that resets mid-tunnel: the origin connection is closed too', async () => {
    const before = echoSockets.length;
    const conv = await rawSend(proxyPort, `CONNECT 127.0.0.1:${portOf(echo)} HTTP/1.1\r\n\r\n`);
    await until('the tunnel to be established', () => conv.received().toString().startsWith('HTTP/1.1 200'), 30_000);
    conv.socket.write('half a message');
    conv.socket.resetAndDestroy();
    const upstream = await until('the origin to see the connection', () => echoSockets[before], 30_000);
    await until(
      'the origin connection to be closed after the client reset',
      () => upstream.destroyed || upstream.readableEnded,
      30_000,
    );
    await proxyStillTunnels();
  });

  it('a client that resets before the answer, and an origin that resets mid-body', async () => {
    const early = await rawSend(proxyPort, `GET http://127.0.0.1:${portOf(web)}/ok HTTP/1.1\r\nHost: x\r\n\r\n`);
    early.socket.resetAndDestroy();
    const mid = await rawSend(
      proxyPort,
      `GET http://127.0.0.1:${portOf(web)}/reset-mid-body HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    await until('the client to be cut after the partial body', () => mid.closed(), 30_000);
    expect(mid.received().toString()).toMatch(/^HTTP\/1\.1 200[\s\S]*partial/);
    expect(await rawStatus(proxyPort, `GET http://127.0.0.1:${portOf(web)}/ok HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe(200);
    await proxyStillTunnels();
  });
});

describe('an origin that closes a kept-alive connection as the proxy reuses it', () => {
  it('a GET is sent again on a new connection and answered, not a 502', async () => {
    // Each connection answers its first request (keep-alive) and closes without answering a second:
    // what a server whose keep-alive timeout ran out does to a request that crossed its close.
    const closer = await listen(
      net.createServer((s) => {
        let requests = 0;
        s.on('error', () => undefined);
        s.on('data', () => {
          if (++requests === 1) s.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nfresh');
          else s.destroy();
        });
      }),
    );
    const get = () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = `http://127.0.0.1:${portOf(closer)}/page`;
        http
          .get(
            {
              host: '127.0.0.1',
              port: proxyPort,
              path: url,
              headers: { host: `127.0.0.1:${portOf(closer)}` },
              agent: false,
            },
            (res) => {
              let body = '';
              res.on('data', (c: Buffer) => (body += c.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            },
          )
          .on('error', reject);
      });
    try {
      expect(await get()).toEqual({ status: 200, body: 'fresh' });
      expect(await get()).toEqual({ status: 200, body: 'fresh' }); // the pooled connection was the stale one
    } finally {
      closer.close();
    }
  });
});
