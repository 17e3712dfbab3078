// What it costs that only our own Chromium may use the egress proxy (`node dist/bench/proxy-gate.js`).
// Prints one JSON line:
// - render p50/p95 of N sequential small PNG renders of a local page (document + one image, both
//   through the proxy), with the check (as shipped) and without it (the check forced to pass), in
//   alternating blocks so drift on a shared machine hits both alike;
// - the check's own cost per connection, for a socket that is not Chromium's (the worst case: every
//   process in /proc is looked at);
// - for comparison, the other way considered: per-start credentials through Playwright's launch
//   `proxy: {server, username, password}`, which makes Playwright intercept every request to answer
//   the challenge: raw Playwright goto + screenshot of the same page, with and without credentials.
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { loadConfig } from '../src/config-load.js';
import { EgressPolicy } from '../src/egress/policy.js';
import { EgressProxy } from '../src/egress/proxy.js';
import { heldByBrowsers } from '../src/egress/socket-owner.js';
import { createLogger } from '../src/log.js';
import { startService } from '../src/app/serve.js';
import { findChromium } from '../src/render/browser/chromium-path.js';
import { percentile, round1 } from './stats.js';

const N = Number(process.env.BENCH_N ?? 100);
const BLOCK = 25;

async function fixture(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/dot.svg') {
      res
        .writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'no-store' })
        .end(
          '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="teal"/></svg>',
        );
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' })
      .end('<!doctype html><body><h1>Hello</h1><img src="/dot.svg"></body>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, close: () => server.close() };
}

const stats = (ms: number[]) => ({ p50: round1(percentile(ms, 50)), p95: round1(percentile(ms, 95)) });

async function serviceRenders(pageUrl: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-bench-gate-'));
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      logLevel: 'silent',
      egress: { allowHosts: ['127.0.0.1'] },
      rateLimit: { anonymousPerMinute: 1_000_000 },
    },
  });
  const svc = await startService(config, createLogger('silent'));
  // The check is a private step of the proxy; forcing it to pass is the "without" case.
  const proto = EgressProxy.prototype as unknown as { fromOwnBrowser: (s: net.Socket) => Promise<boolean> };
  const shipped = proto.fromOwnBrowser;
  const render = async () => {
    const t = performance.now();
    const res = await fetch(`${svc.url}/api/image`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: pageUrl, viewport: { width: 200, height: 100 } }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`render failed: ${res.status}`);
    return performance.now() - t;
  };
  const out = {
    withCheck: [] as number[],
    withoutCheck: [] as number[],
    refusal: [] as number[],
    connectionsChecked: 0,
    requestWaitForCheck: [] as number[],
  };
  // Each proxy connection is checked once (keep-alive connections serve many requests): count them.
  const checked = new Set<net.Socket>();
  const waits: number[] = []; // how long a request waited for its connection's check
  const counting = async function (this: unknown, socket: net.Socket) {
    checked.add(socket);
    const t = performance.now();
    try {
      return await shipped.call(this, socket);
    } finally {
      waits.push(performance.now() - t);
    }
  };
  try {
    for (let i = 0; i < 10; i++) await render(); // warm up
    for (let done = 0; done < N; done += BLOCK) {
      proto.fromOwnBrowser = counting;
      for (let i = 0; i < BLOCK; i++) out.withCheck.push(await render());
      proto.fromOwnBrowser = () => Promise.resolve(true);
      for (let i = 0; i < BLOCK; i++) out.withoutCheck.push(await render());
    }
    out.connectionsChecked = checked.size;
    out.requestWaitForCheck = waits;
    out.refusal = await refusalCost(svc.browsers.browserPids());
  } finally {
    proto.fromOwnBrowser = shipped;
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

/**
 * The check for a socket held by this process (same user as the browser, not one of its processes):
 * the worst case, every process of the browser is looked at before the answer is no.
 */
async function refusalCost(leaders: number[]): Promise<number[]> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const [accepted] = (await once(server, 'connection')) as [net.Socket];
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    if (await heldByBrowsers(accepted, leaders)) throw new Error("a socket of this process passed as a browser's");
    ms.push(performance.now() - t);
  }
  client.destroy();
  server.close();
  return ms;
}

async function playwrightRenders(pageUrl: string, credentials: boolean): Promise<number[]> {
  const proxy = new EgressProxy(new EgressPolicy({ allowPrivate: false, allowHosts: ['127.0.0.1'], denyHosts: [] }));
  await proxy.start();
  const server = proxy.url;
  const browser = await chromium.launch({
    executablePath: findChromium(''),
    args: ['--proxy-bypass-list=<-loopback>'],
    proxy: credentials ? { server, username: 'pagewatch', password: 'per-start-random' } : { server },
  });
  const page = await browser.newPage({ viewport: { width: 200, height: 100 } });
  const ms: number[] = [];
  try {
    for (let i = 0; i < N + 10; i++) {
      const t = performance.now();
      await page.goto(pageUrl, { waitUntil: 'load' });
      await page.screenshot({ type: 'png' });
      if (i >= 10) ms.push(performance.now() - t);
    }
  } finally {
    await browser.close();
    await proxy.stop();
  }
  return ms;
}

const site = await fixture();
try {
  const service = await serviceRenders(site.url);
  const plain = await playwrightRenders(site.url, false);
  const creds = await playwrightRenders(site.url, true);
  console.log(
    JSON.stringify({
      renders: N,
      serviceRenderMs: { withCheck: stats(service.withCheck), withoutCheck: stats(service.withoutCheck) },
      proxyConnectionsCheckedInRendersWithCheck: service.connectionsChecked,
      proxyRequestsInRendersWithCheck: service.requestWaitForCheck.length,
      requestWaitForCheckMs: stats(service.requestWaitForCheck),
      refusalCheckMs: stats(service.refusal),
      playwrightCredentialsMs: { without: stats(plain), with: stats(creds) },
    }),
  );
} finally {
  site.close();
}
