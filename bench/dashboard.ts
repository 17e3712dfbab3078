// The /monitors dashboard's cost to a browser: lines of JavaScript it loads (its own and vendored),
// bytes sent for a cold load (every response body: HTML, JS, CSS, icon; no compression is used), and
// the time from navigation start until the list shows the seeded monitors. One JSON line, medians
// over RUNS cold loads (a fresh browser context each, so nothing is cached).
// `npm run build && node dist/bench/dashboard.js`
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Response } from 'playwright';
import { findChromium } from '../src/render/browser/chromium-path.js';
import { createKey } from './async-jobs.js';
import { log } from './measure.js';
import { startService } from './service.js';
import { percentile } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const MONITORS = 3;
/** Files the page loads that are copies of someone else's code, not the dashboard's own. */
const VENDORED = /\/vendor\/|cronstrue\.min\.js$/;

interface Load {
  bytes: number;
  ownJsLines: number;
  vendoredJsLines: number;
  jsFiles: number;
  paintMs: number;
}

const lines = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

async function main(): Promise<void> {
  const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>x</p>'));
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const svc = await startService({ PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]' });
  const browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  try {
    const key = createKey(svc.dataDir);
    for (let i = 1; i <= MONITORS; i++) {
      // Paused: no capture runs while the page is measured.
      const res = await fetch(`${svc.baseUrl}/api/monitors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bench ${i}`, url: `${siteUrl}/${i}`, schedule: '0 * * * *', paused: true }),
      });
      if (res.status !== 201) throw new Error(`create monitor -> ${res.status}: ${await res.text()}`);
    }
    const loads: Load[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript((k) => localStorage.setItem('pagewatch.apiKey', k), key);
      const page = await context.newPage();
      const bodies: Promise<{ url: string; text: string; bytes: number }>[] = [];
      const onResponse = (response: Response): void => {
        if (!response.url().startsWith(svc.baseUrl) || response.url().includes('/api/')) return;
        bodies.push(response.body().then((b) => ({ url: response.url(), text: b.toString('utf8'), bytes: b.length })));
      };
      page.on('response', onResponse);
      await page.goto(`${svc.baseUrl}/monitors`, { waitUntil: 'commit' });
      // performance.now() counts from the navigation's start; polled each frame, so within one frame.
      const paintMs = await (
        await page.waitForFunction(
          (n) => (document.querySelectorAll('tbody tr[data-id]').length === n ? performance.now() : false),
          MONITORS,
          { polling: 'raf' },
        )
      ).jsonValue();
      // Every file of the page has arrived (the icon may come after the list).
      await page.waitForLoadState('networkidle');
      page.off('response', onResponse);
      const files = await Promise.all(bodies);
      const js = files.filter((f) => /\.js$/.test(new URL(f.url).pathname));
      loads.push({
        bytes: files.reduce((sum, f) => sum + f.bytes, 0),
        ownJsLines: js.filter((f) => !VENDORED.test(f.url)).reduce((sum, f) => sum + lines(f.text), 0),
        vendoredJsLines: js.filter((f) => VENDORED.test(f.url)).reduce((sum, f) => sum + lines(f.text), 0),
        jsFiles: js.length,
        paintMs: paintMs as number,
      });
      log(`run ${run + 1}: ${JSON.stringify(loads.at(-1))}`);
      await context.close();
    }
    const median = (pick: (l: Load) => number): number => percentile(loads.map(pick), 50);
    console.log(
      JSON.stringify({
        runs: RUNS,
        monitors: MONITORS,
        ownJsLines: median((l) => l.ownJsLines),
        vendoredJsLines: median((l) => l.vendoredJsLines),
        jsFiles: median((l) => l.jsFiles),
        coldLoadBytes: median((l) => l.bytes),
        firstListPaintMs: Math.round(median((l) => l.paintMs)),
      }),
    );
  } finally {
    await browser.close();
    await svc.stop();
    site.close();
  }
}

await main();
