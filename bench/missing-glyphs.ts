// The cost of the missing-glyph check every render runs before its capture (src/render/page-reads/
// missing-glyphs.ts): the check alone, timed over repeated runs on a page already loaded. Pages: the bench
// invoice, a 2,000-block page of mixed scripts, and the same with characters no font has (the pixel path).
// `npm run build && node dist/bench/missing-glyphs.js` (FONTCONFIG_FILE=... to try other fonts).
import { chromium } from 'playwright';
import { findChromium } from '../src/render/browser/chromium-path.js';
import {
  findMissingGlyphs,
  MAX_DISTINCT,
  MAX_MISSING_GLYPHS,
  MAX_TEXT_NODES,
  scanMissingGlyphs,
} from '../src/render/page-reads/missing-glyphs.js';
import { shortSelectors } from '../src/render/page-reads/short-selector.js';
import { invoiceHtml } from './invoice-html.js';
import { percentile, round1 } from './stats.js';

const RUNS = 50;
// The scan alone, timed inside the page (performance.now() there is coarsened to 0.1 ms).
const IN_PAGE = `(() => { const t = performance.now(); (${scanMissingGlyphs.toString()})(${JSON.stringify({
  maxReported: MAX_MISSING_GLYPHS + 1,
  maxTextNodes: MAX_TEXT_NODES,
  maxDistinct: MAX_DISTINCT,
  maxSelector: 300,
})}, ${shortSelectors.toString()}); return performance.now() - t; })()`;

function blocksPage(blocks: number, extra: string): string {
  const words = ['Invoice', 'Rechnung', 'Facture', '請求書', '发票', '청구서', 'चालान', 'فاتورة', 'Счёт', '😀'];
  const rows = Array.from(
    { length: blocks },
    (_, i) => `<p class="b${i % 7}">${i} ${words[i % words.length]} ${words[(i * 3) % words.length]}${extra}</p>`,
  );
  return `<!doctype html><html><head><meta charset="utf-8"><style>.b3{font-weight:bold}.b5{font-style:italic}</style></head><body>${rows.join('')}</body></html>`;
}

const PAGES: Record<string, string> = {
  invoice: invoiceHtml,
  '2000 blocks': blocksPage(2000, ''),
  '2000 blocks, 3 tofu characters': blocksPage(2000, ' \u0378\u{E01F0}\u{10FFFD}'.replace('\u{E01F0}', '\u{0870}')),
};

const executablePath = findChromium('');
if (!executablePath) throw new Error('no Chromium found');
const browser = await chromium.launch({ executablePath, chromiumSandbox: false, args: ['--font-render-hinting=none'] });
try {
  for (const [name, html] of Object.entries(PAGES)) {
    const page = await browser.newPage();
    await page.setContent(html, { waitUntil: 'load' });
    await findMissingGlyphs(page); // warm: the first run compiles the function and loads fallback fonts
    const times: number[] = [];
    const inPage: number[] = [];
    const roundTrips: number[] = [];
    let found = 0;
    for (let i = 0; i < RUNS; i++) {
      let start = performance.now();
      found = (await findMissingGlyphs(page)).glyphs.length;
      times.push(performance.now() - start);
      inPage.push(await page.evaluate<number>(IN_PAGE));
      // What any evaluate costs on this machine now: the check's round trip is one of these.
      start = performance.now();
      await page.evaluate('0');
      roundTrips.push(performance.now() - start);
    }
    const p = (values: number[], at: number) => round1(percentile(values, at));
    console.log(
      `${name}: check p50 ${p(times, 50)} ms, p95 ${p(times, 95)} ms; of which in the page p50 ` +
        `${p(inPage, 50)} ms; an empty evaluate p50 ${p(roundTrips, 50)} ms; ${found} missing (${RUNS} runs)`,
    );
    await page.close();
  }
} finally {
  await browser.close();
}
