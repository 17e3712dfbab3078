/**
 * The PDF reader of monitors (src/content/pdf-read.ts): the time to read a 3-page and a 50-page PDF (text
 * of every page, picture of the first 3), the event loop's longest delay meanwhile, and what the picture's
 * stitching alone costs (decode 3 A4 pages at 72 dpi, stack, encode), which the reader's thread does.
 *
 *   npm run build && node dist/bench/pdf-read.js    # prints {"pdfRead": {...}} as its one JSON line
 *
 * Env: BENCH_PDF_READ_SAMPLES (9) reads per document.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readPdf } from '../src/content/pdf-read.js';
import { stitchPages } from '../src/content/pdf-picture.js';
import { priceList, textPdf } from '../test/helpers/text-pdf.js';
import { log } from './measure.js';
import { percentile, round1 } from './stats.js';

const SAMPLES = Math.max(1, Number(process.env.BENCH_PDF_READ_SAMPLES ?? 9));
const LIMITS = { maxPages: 50, picturePages: 3, timeoutMs: 20_000, memoryMb: 256 };

async function readTimes(pages: number) {
  const pdf = await textPdf(priceList(pages));
  await readPdf(pdf, LIMITS, new AbortController().signal); // warm the page cache and the loader
  const samples: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    await readPdf(pdf, LIMITS, new AbortController().signal);
    samples.push(performance.now() - t0);
  }
  delay.disable();
  log(`${pages} pages: ${samples.map(round1).join(', ')} ms`);
  return {
    p50Ms: round1(percentile(samples, 50)),
    maxMs: round1(Math.max(...samples)),
    maxEventLoopDelayMs: round1(delay.max / 1e6),
  };
}

/** The stitch of 3 A4 pages on this thread: what the reader's thread spends on the picture. */
async function stitchTimes() {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-bench-pdf-read-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), await textPdf(priceList(3)));
    execFileSync('pdftoppm', ['-png', '-r', '72', 'in.pdf', 'page'], { cwd: dir });
    const pngs = readdirSync(dir)
      .filter((f) => f.endsWith('.png'))
      .sort()
      .map((f) => readFileSync(join(dir, f)));
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES + 1; i++) {
      const t0 = performance.now();
      stitchPages(pngs);
      if (i > 0) samples.push(performance.now() - t0);
    }
    return { p50Ms: round1(percentile(samples, 50)), maxMs: round1(Math.max(...samples)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const result = {
  pdfRead: {
    samples: SAMPLES,
    threePages: await readTimes(3),
    fiftyPages: await readTimes(50),
    stitchThreeA4At72Dpi: await stitchTimes(),
  },
};
console.log(JSON.stringify(result));
