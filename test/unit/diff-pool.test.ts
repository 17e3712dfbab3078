// The pool runs the compiled thread script: `npx tsc -p tsconfig.json` (or `npm run build`) before these tests.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { comparePngs, type DiffOptions } from '../../src/diff/pixels/compare.js';
import { Differ, ImageTooLarge, pngSize, sha256 } from '../../src/diff/pixels/differ.js';
import { DEFAULT_THREAD_SCRIPT, DiffPool } from '../../src/diff/pixels/pool.js';
import { projectRoot } from '../../src/project-root.js';
import { pngHeaderOnly } from '../helpers/png-header.js';

const OPTS: DiffOptions = { threshold: 0.1, includeAA: false, ignore: [] };

/** A white page with a dark block at (x, y). */
function page(x: number, y: number, width = 300, height = 200): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(255);
  for (let py = y; py < y + 30; py++) {
    for (let px = x; px < x + 60; px++) png.data.set([20, 20, 20, 255], (py * width + px) * 4);
  }
  return PNG.sync.write(png);
}

const baseline = page(10, 10);
const current = page(100, 120, 300, 240);

const pools: DiffPool[] = [];
function pool(size: number, script?: string): DiffPool {
  const p = new DiffPool(size, script === undefined ? {} : { script });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

describe('DiffPool', () => {
  it('gives the same result as comparePngs in-process, diff image included', async () => {
    const options = { ...OPTS, ignore: [{ x: 0, y: 0, width: 20, height: 20 }] };
    const viaThread = await pool(1).compare(baseline, current, options);
    const inProcess = comparePngs(baseline, current, options);
    expect(viaThread).toEqual(inProcess);
    expect(Buffer.isBuffer(viaThread.diffPng)).toBe(true);
    expect(viaThread.diffPixels).toBeGreaterThan(0);
  });

  it('runs 4 concurrent compares on 2 threads', async () => {
    const p = pool(2);
    const pairs = [
      [baseline, current],
      [current, baseline],
      [baseline, baseline],
      [page(0, 0), page(5, 5)],
    ] as const;
    const results = await Promise.all(pairs.map(([a, b]) => p.compare(a, b, OPTS)));
    results.forEach((r, i) => {
      const [a, b] = pairs[i] as readonly [Buffer, Buffer];
      expect(r).toEqual(comparePngs(a, b, OPTS));
    });
  });

  it('rejects garbage with the decode error, and keeps working', async () => {
    const p = pool(1);
    await expect(p.compare(Buffer.from('garbage'), current, OPTS)).rejects.toThrow(/decode baseline PNG/);
    expect((await p.compare(baseline, current, OPTS)).diffPixels).toBeGreaterThan(0);
  });

  it("does not detach or change the caller's buffers, even small pooled ones", async () => {
    const small = Buffer.from(baseline); // Buffer.from copies into Node's shared pool when small
    const copy = Buffer.from(small);
    await pool(1).compare(small, current, OPTS);
    expect(small.equals(copy)).toBe(true);
  });

  it('stop() resolves, fails the compare in flight, and later compares reject', async () => {
    const p = pool(1);
    const inFlight = expect(p.compare(baseline, current, OPTS)).rejects.toThrow(/stopped/);
    const queued = expect(p.compare(current, baseline, OPTS)).rejects.toThrow(/stopped/);
    await p.stop();
    await inFlight;
    await queued;
    await expect(p.compare(baseline, current, OPTS)).rejects.toThrow(/stopped/);
    await p.stop(); // twice is fine
  });

  it('a missing thread script rejects with a hint to build', async () => {
    await expect(pool(1, '/nonexistent/thread.js').compare(baseline, current, OPTS)).rejects.toThrow(/npm run build/);
  });

  it('the default thread script is the compiled one in dist/', async () => {
    // Guards the path every caller relies on: vitest runs src/*.ts, the worker must load dist/*.js.
    expect(DEFAULT_THREAD_SCRIPT).toBe(join(projectRoot(), 'dist/src/diff/pixels/thread.js'));
    // A pool given no script really runs that one.
    await expect(pool(1).compare(baseline, baseline, OPTS)).resolves.toMatchObject({ diffPixels: 0 });
  });

  describe('a thread that dies', () => {
    let dir = '';
    let script = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'pagewatch-diff-'));
      script = join(dir, 'fragile-thread.mjs');
      // Exits or throws on request (picked by the threshold), else answers like the real thread.
      await writeFile(
        script,
        `
        import { parentPort } from 'node:worker_threads';
        parentPort.on('message', (req) => {
          if (req.options.threshold === 0.77) process.exit(3);
          if (req.options.threshold === 0.66) throw new Error('boom');
          parentPort.postMessage({ id: req.id, ok: true, result: {
            width: 1, height: 1, diffPixels: 0, comparedPixels: 1, diffRatio: 0, regions: [], diffPng: null } });
        });
      `,
      );
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('rejects its task, and a new thread takes the next one', async () => {
      const p = pool(1, script);
      const exiting = p.compare(baseline, current, { ...OPTS, threshold: 0.77 });
      const next = p.compare(baseline, current, OPTS); // queued behind the one that kills the thread
      await expect(exiting).rejects.toThrow(/exited with code 3/);
      await expect(next).resolves.toMatchObject({ diffPixels: 0 });
      await expect(p.compare(baseline, current, { ...OPTS, threshold: 0.66 })).rejects.toThrow(/crashed: boom/);
      await expect(p.compare(baseline, current, OPTS)).resolves.toMatchObject({ width: 1 });
    });
  });

  it('idle threads do not keep the process alive; a busy one does until its result arrives', async () => {
    // A script file, not `node -e`: a worker inherits the parent's execArgv, and `--input-type` breaks it.
    const dir = await mkdtemp(join(tmpdir(), 'pagewatch-diff-'));
    try {
      const script = join(dir, 'no-stop.mjs');
      await writeFile(
        script,
        `
        import { DiffPool } from ${JSON.stringify(join(projectRoot(), 'dist/src/diff/pixels/pool.js'))};
        const a = Buffer.from(${JSON.stringify(baseline.toString('base64'))}, 'base64');
        const b = Buffer.from(${JSON.stringify(current.toString('base64'))}, 'base64');
        const r = await new DiffPool(1).compare(a, b, { threshold: 0.1, includeAA: false, ignore: [] });
        console.log('diffPixels', r.diffPixels);
        // no stop(): the process must still exit on its own
      `,
      );
      const t0 = Date.now();
      const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 20_000 });
      expect(stdout.trim()).toBe(`diffPixels ${comparePngs(baseline, current, OPTS).diffPixels}`);
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** limits.maxImagePixels, the default. */
const MAX_PIXELS = 50_000_000;

describe('the pixel cap in the diff thread', () => {
  it('a PNG header over maxPixels fails that compare only: the thread answers and takes the next one', async () => {
    const p = pool(1);
    const huge = pngHeaderOnly(100_000, 100_000);
    await expect(p.compare(huge, baseline, { ...OPTS, maxPixels: MAX_PIXELS })).rejects.toThrow(
      /100000×100000 = 10000000000 pixels, over the limit of 50000000/,
    );
    expect(await p.compare(baseline, current, { ...OPTS, maxPixels: MAX_PIXELS })).toEqual(
      comparePngs(baseline, current, OPTS),
    );
  });

  it('Differ refuses an oversized image itself (ImageTooLarge), before the pool and before the identical-bytes answer', async () => {
    const p = pool(1);
    await p.stop(); // a compare that reached the pool would reject with "stopped"
    const differ = new Differ(p, MAX_PIXELS);
    const huge = { bytes: pngHeaderOnly(100_000, 100_000), sha256: 'x' };
    await expect(differ.compare(huge, huge, OPTS)).rejects.toBeInstanceOf(ImageTooLarge);
    await expect(differ.compare({ bytes: baseline, sha256: sha256(baseline) }, huge, OPTS)).rejects.toThrow(
      /the current image is 100000×100000/,
    );
    expect(() => differ.check(huge, 'captured')).toThrow(/the captured image/);
    // At the cap: a 300×200 capture with a cap of exactly 60000 pixels is compared.
    const atCap = new Differ(pool(1), 300 * 200);
    expect(
      (await atCap.compare({ bytes: baseline, sha256: 'a' }, { bytes: page(50, 50), sha256: 'b' }, OPTS)).width,
    ).toBe(300);
    await expect(
      new Differ(pool(1), 300 * 200 - 1).compare(
        { bytes: baseline, sha256: 'a' },
        { bytes: page(50, 50), sha256: 'b' },
        OPTS,
      ),
    ).rejects.toBeInstanceOf(ImageTooLarge);
  });
});

describe('Differ', () => {
  const capture = (bytes: Buffer) => ({ bytes, sha256: sha256(bytes) });

  it('answers byte-identical captures without a thread (a stopped pool still works for them)', async () => {
    const p = pool(1);
    await p.stop();
    const differ = new Differ(p, MAX_PIXELS);
    const ignore = [
      { x: 0, y: 0, width: 100, height: 10 },
      { x: 250, y: 190, width: 100, height: 100 },
    ];
    const r = await differ.compare(capture(baseline), capture(Buffer.from(baseline)), { ...OPTS, ignore });
    expect(r).toEqual({
      width: 300,
      height: 200,
      diffPixels: 0,
      comparedPixels: 300 * 200 - 1000 - 50 * 10,
      diffRatio: 0,
      regions: [],
      diffPng: null,
    });
    // Different bytes do need the pool, which is stopped: proof the identical pair never reached it.
    await expect(differ.compare(capture(baseline), capture(current), OPTS)).rejects.toThrow(/stopped/);
  });

  it('compares different captures through the pool', async () => {
    const r = await new Differ(pool(1), MAX_PIXELS).compare(capture(baseline), capture(current), OPTS);
    expect(r).toEqual(comparePngs(baseline, current, OPTS));
  });

  it('sha256 is the hex digest of the bytes; pngSize reads IHDR and refuses non-PNGs', () => {
    expect(sha256(baseline)).toBe(createHash('sha256').update(baseline).digest('hex'));
    expect(pngSize(current)).toEqual({ width: 300, height: 240 });
    expect(() => pngSize(Buffer.from('GIF89a-not-a-png-at-all-really'))).toThrow(/not a PNG/);
  });
});
