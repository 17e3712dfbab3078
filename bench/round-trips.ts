// Browser round trips per render and per wipe, counted in Playwright's own protocol log (DEBUG=pw:protocol
// written to DEBUG_FILE): every message the service sends Chromium is one round trip. A service of its own
// (logging every message slows it), with one render slot and one warm page. What is sent from a request
// up to its capture (the screenshot, or the PDF's last read) is the render's; what follows until the page
// is idle again is its wipe (which starts as the response is being written, so the response is no border).
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { log } from './measure.js';
import type { Format } from './raw.js';
import { serviceRenderer, startService, type ServiceHandle } from './service.js';

export interface RoundTrips {
  render: number;
  wipe: number;
  /** Messages by CDP method, render and wipe together. */
  methods: Record<string, number>;
}

const RENDERS = 5;

const CAPTURE_ENDS = new Set(['Page.captureScreenshot', 'Page.printToPDF', 'IO.close']);

/** The methods sent from `from` on, split after the capture's last message: [render, wipe]. */
function sentSince(file: string, from: number): [string[], string[]] {
  const sent: string[] = [];
  for (const line of readFileSync(file).subarray(from).toString('utf8').split('\n')) {
    const message = /SEND ► (\{.*\})$/.exec(line);
    if (message) sent.push((JSON.parse(message[1]!) as { method: string }).method);
  }
  let end = sent.length;
  while (end > 0 && !CAPTURE_ENDS.has(sent[end - 1]!)) end--;
  // Playwright's screenshot takes its caret style off the page again after the capture (one call): still the
  // render's. A call after that is the page being emptied or wiped.
  if (sent[end - 1] === 'Page.captureScreenshot' && sent[end] === 'Runtime.callFunctionOn') end++;
  return [sent.slice(0, end), sent.slice(end)];
}

/** The page is back in the pool (its wipe, if any, is done): /api/status counts it idle again. */
async function pageIdle(svc: ServiceHandle): Promise<void> {
  for (let i = 0; ; i++) {
    const status = (await (await fetch(`${svc.baseUrl}/api/status`)).json()) as { browser: { warmPages: number } };
    if (status.browser.warmPages === 1) return;
    if (i > 500) throw new Error('the warm page did not come back within 10 s');
    await sleep(20); // polling interval of a condition, not a guess at a duration
  }
}

/** Round trips of the service's render of `html` as `format`: the mean over RENDERS renders after warm-up. */
export async function measureRoundTrips(pages: Record<string, string>, formats: readonly Format[]) {
  const dir = await mkdtemp(join(tmpdir(), 'pagewatch-trips-'));
  const file = join(dir, 'protocol.log');
  const size = () => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const svc = await startService({
    DEBUG: 'pw:protocol',
    DEBUG_FILE: file,
    PAGEWATCH_RENDER_CONCURRENCY: '1',
    PAGEWATCH_RENDER_WARM_PAGES: '1',
  });
  try {
    const out: Record<string, RoundTrips> = {};
    for (const [name, html] of Object.entries(pages)) {
      for (const format of formats) {
        const render = serviceRenderer(svc.baseUrl, html, format);
        for (let i = 0; i < 2; i++) {
          await render(0);
          await pageIdle(svc);
        }
        let [rendered, wiped] = [0, 0];
        const methods: Record<string, number> = {};
        for (let i = 0; i < RENDERS; i++) {
          const start = size();
          await render(0);
          await pageIdle(svc);
          const [r, w] = sentSince(file, start);
          rendered += r.length / RENDERS;
          wiped += w.length / RENDERS;
          for (const m of [...r, ...w]) methods[m] = (methods[m] ?? 0) + 1 / RENDERS;
        }
        const r1 = (n: number) => Math.round(n * 10) / 10;
        for (const m of Object.keys(methods)) methods[m] = r1(methods[m]!);
        out[`${name}.${format}`] = { render: r1(rendered), wipe: r1(wiped), methods };
        log(`round trips ${name} ${format}: render ${rendered}, wipe ${wiped}`);
      }
    }
    return out;
  } finally {
    await svc.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
