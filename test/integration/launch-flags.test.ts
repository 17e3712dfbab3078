// The flags Chromium is launched with, read back from the running browser's command line, and what
// turning RenderDocument off is for: a page that moves itself through several documents of its site
// (meta refresh hops) used to leave about one screenshot in eight without an answer for seconds, and a
// render's capture waited for it until its timeout (a 504 for a page that had loaded fine).
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findChromium } from '../../src/render/chromium-path.js';
import { launchChromium, PLAYWRIGHT_DISABLED_FEATURES } from '../../src/render/launch.js';

let browser: Browser;
let pid: number | undefined;

beforeAll(async () => {
  // Nothing listens on the proxy's port: the pages below are answered by page.route, never the network.
  ({ browser, pid } = await launchChromium({
    executablePath: findChromium('')!,
    proxyUrl: 'http://127.0.0.1:9',
    sandbox: false,
  }));
});
afterAll(async () => {
  await browser?.close();
});

it("repeats Playwright's disabled features in the one --disable-features Chromium reads, and adds RenderDocument", () => {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const lists = args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice(19).split(','));
  expect(lists.length).toBeGreaterThanOrEqual(1);
  const effective = lists.at(-1)!; // Chromium keeps the last one
  for (const list of lists) expect(effective).toEqual(expect.arrayContaining(list));
  expect(effective).toEqual(expect.arrayContaining([...PLAYWRIGHT_DISABLED_FEATURES, 'RenderDocument']));
});

it('screenshots of a page that moves itself through five documents always answer', async () => {
  const page = await browser.newPage();
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const n = Number(url.searchParams.get('n') ?? -1);
    const body =
      n < 0 ? '<h1>LANDED</h1>' : `<p>HOP-${n}</p><meta http-equiv="refresh" content="0;url=/hop?n=${n - 1}">`;
    return route.fulfill({ status: 200, contentType: 'text/html', body });
  });
  const stuck: string[] = [];
  for (let round = 0; round < 12; round++) {
    await page.goto('http://site.test/hop?n=5', { waitUntil: 'commit' }).catch(() => undefined);
    for (let shot = 0; shot < 6; shot++) {
      // A screenshot takes well under a second here; 10 s without an answer is a hang, not a slow machine.
      await page.screenshot({ timeout: 10_000 }).catch((err: Error) => {
        if (/Timeout/.test(err.message)) stuck.push(`round ${round}, shot ${shot}: ${page.url()}`);
        // Other errors ("Not attached to an active page" mid-move) answer at once: the renderer retries those.
      });
    }
  }
  expect(stuck).toEqual([]);
}, 240_000);
