/**
 * Diff benchmark: a synthetic 1280×10000 full-page pair compared through the thread pool (wall time and how
 * long the main event loop was blocked meanwhile), the same compare in-process for reference, and the
 * identical-capture short-cut.
 *
 *   npm run build && node dist/bench/diff.js
 *
 * Prints exactly one JSON line on stdout; progress goes to stderr.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { comparePngs, type DiffOptions } from '../src/diff/pixels/compare.js';
import { Differ, sha256, type CaptureImage } from '../src/diff/pixels/differ.js';
import { DiffPool } from '../src/diff/pixels/pool.js';
import { percentile, round1 } from './stats.js';

export interface DiffFigures {
  /** Median wall ms of differ.compare on the large changed pair through DiffPool(1), 3 runs. */
  diffLargeWallMs: number;
  /** Median ms of comparePngs on the same pair on the main thread, 3 runs. */
  diffLargeInProcessMs: number;
  /** Longest main event-loop stall during the pooled compares (target < 50). */
  diffLargeLoopMaxDelayMs: number;
  /**
   * Median main-thread busy time per pooled compare (event-loop utilization, active ms). On a loaded machine the
   * loop delay above also counts time the OS did not schedule the main thread; this is our own work on it.
   */
  diffLargeMainThreadActiveMs: number;
  diffLargePixels: number;
  /** Byte-identical pair with precomputed hashes, 50 runs (target < 10). */
  diffIdenticalP50Ms: number;
  diffIdenticalP95Ms: number;
  /** sha256 of one large PNG: paid once per capture, not per compare. */
  sha256LargeMs: number;
}

const WIDTH = 1280;
const HEIGHT = 10000;
const OPTIONS: DiffOptions = { threshold: 0.1, includeAA: false, ignore: [] };

function log(msg: string): void {
  process.stderr.write(`[bench diff] ${msg}\n`);
}

/** Small seeded PRNG (mulberry32): the same page on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fillRect(
  png: PNG,
  x0: number,
  y0: number,
  w: number,
  h: number,
  rgb: readonly [number, number, number],
): void {
  for (let y = y0; y < Math.min(png.height, y0 + h); y++) {
    for (let x = x0; x < Math.min(png.width, x0 + w); x++) {
      const i = (y * png.width + x) * 4;
      png.data[i] = rgb[0];
      png.data[i + 1] = rgb[1];
      png.data[i + 2] = rgb[2];
      png.data[i + 3] = 255;
    }
  }
}

/** A line of "text": words of 2 px dark strokes with grey anti-aliased edges, like rendered glyphs. */
function textLine(png: PNG, x0: number, x1: number, y: number, rand: () => number): void {
  let x = x0;
  while (x < x1 - 40) {
    const word = 20 + Math.floor(rand() * 70);
    for (let gx = x; gx < Math.min(x1, x + word); gx += 3) {
      const top = y + Math.floor(rand() * 5);
      const h = 8 + Math.floor(rand() * 8);
      fillRect(png, gx, top, 2, h, [30, 30, 30]);
      fillRect(png, gx + 2, top, 1, h, [170, 170, 170]);
    }
    x += word + 8;
  }
}

/** Header, a text column with paragraphs, a sidebar and image blocks. `variant` rewrites a few paragraphs. */
export function syntheticPage(variant: number): PNG {
  const png = new PNG({ width: WIDTH, height: HEIGHT });
  png.data.fill(255);
  fillRect(png, 0, 0, WIDTH, 80, [20, 40, 90]);
  const layout = rng(1);
  let y = 120;
  let paragraph = 0;
  while (y < HEIGHT - 300) {
    // A few paragraphs (and one image) differ in the variant; the layout stream is untouched so nothing moves.
    const changed = variant !== 0 && paragraph % 13 === 4;
    if (paragraph % 6 === 5) {
      const shade = 120 + Math.floor(layout() * 80);
      fillRect(png, 160, y, 600, 280, changed ? [shade, 90, 60] : [shade, 140, 160]);
      y += 320;
    } else {
      const lines = 3 + Math.floor(layout() * 6);
      const words = rng(changed ? 1000 + paragraph * variant : 100 + paragraph);
      for (let l = 0; l < lines; l++) textLine(png, 160, 900, y + l * 24, words);
      y += lines * 24 + 24;
    }
    fillRect(png, 960, y - 40, 200, 12, [200, 210, 220]); // sidebar stripes
    paragraph++;
  }
  return png;
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

export async function measureDiff(): Promise<DiffFigures> {
  log('building and encoding the synthetic pages (not timed)');
  const baselineBytes = PNG.sync.write(syntheticPage(0), { deflateLevel: 6 });
  const currentBytes = PNG.sync.write(syntheticPage(1), { deflateLevel: 6 });
  const baseline: CaptureImage = { bytes: baselineBytes, sha256: sha256(baselineBytes) };
  const current: CaptureImage = { bytes: currentBytes, sha256: sha256(currentBytes) };
  log(`PNG sizes: ${(baselineBytes.length / 1e6).toFixed(2)} MB, ${(currentBytes.length / 1e6).toFixed(2)} MB`);

  const pool = new DiffPool(1);
  try {
    const differ = new Differ(pool, 50_000_000); // limits.maxImagePixels, the default
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    const wall: number[] = [];
    let diffPixels = 0;
    histogram.enable();
    const active: number[] = [];
    for (let i = 0; i < 3; i++) {
      const elu = performance.eventLoopUtilization();
      const run = await timed(() => differ.compare(baseline, current, OPTIONS));
      active.push(performance.eventLoopUtilization(elu).active);
      wall.push(run.ms);
      diffPixels = run.value.diffPixels;
      log(`pooled compare ${i + 1}: ${run.ms.toFixed(0)} ms, ${diffPixels} px, ${run.value.regions.length} regions`);
    }
    histogram.disable();
    const loopMaxMs = histogram.max / 1e6;

    const inProcess: number[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await timed(() => comparePngs(baselineBytes, currentBytes, OPTIONS));
      inProcess.push(run.ms);
      log(`in-process compare ${i + 1}: ${run.ms.toFixed(0)} ms`);
    }

    const identical: number[] = [];
    const copy: CaptureImage = { bytes: Buffer.from(baselineBytes), sha256: baseline.sha256 };
    for (let i = 0; i < 50; i++) identical.push((await timed(() => differ.compare(baseline, copy, OPTIONS))).ms);

    const hashing: number[] = [];
    for (let i = 0; i < 5; i++) hashing.push((await timed(() => sha256(currentBytes))).ms);

    return {
      diffLargeWallMs: round1(median(wall)),
      diffLargeInProcessMs: round1(median(inProcess)),
      diffLargeLoopMaxDelayMs: round1(loopMaxMs),
      diffLargeMainThreadActiveMs: round1(median(active)),
      diffLargePixels: diffPixels,
      diffIdenticalP50Ms: Math.round(median(identical) * 1000) / 1000,
      diffIdenticalP95Ms: Math.round(percentile(identical, 95) * 1000) / 1000,
      sha256LargeMs: round1(median(hashing)),
    };
  } finally {
    await pool.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  measureDiff().then(
    (figures) => process.stdout.write(`${JSON.stringify(figures)}\n`),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
