// Pictures of the change-detection rule for the docs, from the detection corpus (test/fixtures/diff-corpus):
// each case's a/b pages captured with Chromium as monitors capture them, compared by the service's own code.
//   npm run build && node scripts/diff-pictures.mjs        (writes docs/images/diff-*.png)
// Colours of the zoomed pictures: red = strong real difference, orange = faint real difference (an edge moved
// by part of a pixel), pink = anti-aliased pixel next to a real difference (counted), yellow = anti-aliased
// pixel on its own (not counted), cyan = a lone speck (not counted); the page faded to grey.
/* global document -- read inside page.evaluate, which runs in the browser */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { PNG } from 'pngjs';
import { classifyPixels, dropLonePixels, joinAntiAliasedEdges, PX } from '../dist/src/diff/pixels/classify.js';
import { comparePngs } from '../dist/src/diff/pixels/compare.js';
import { startCorpusSite } from '../dist/test/fixtures/diff-corpus/corpus.js';
import { projectRoot } from '../dist/src/project-root.js';

const OUT = join(projectRoot(), 'docs/images');
const OPTIONS = { threshold: 0.1, includeAA: false, ignore: [] };
const COLOURS = {
  [PX.strong]: [230, 0, 0],
  [PX.weak]: [255, 150, 0],
  [PX.aaEdge]: [255, 100, 200],
  [PX.aaAlone]: [240, 220, 0],
  [PX.lone]: [0, 200, 220],
};

mkdirSync(OUT, { recursive: true });
const site = await startCorpusSite();
const browser = await chromium.launch({
  executablePath: process.env.PAGEWATCH_CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--hide-scrollbars', '--font-render-hinting=none', '--blink-settings=imageAnimationPolicy=2'],
});

/** The case's a and b pages as a monitor captures them (defaults: animations off, caret hidden, reduced motion). */
async function pair(name, fullPage = false) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  const shot = async () => {
    await page.goto(site.pageUrl(name), { waitUntil: 'load' });
    await page.evaluate(async () => {
      await document.fonts.ready;
      for (const img of document.images) img.loading = 'eager';
      await Promise.all([...document.images].map((img) => img.decode().catch(() => undefined)));
    });
    return page.screenshot({ fullPage, animations: 'disabled', caret: 'hide' });
  };
  const a = await shot();
  site.switchToB(name);
  const b = await shot();
  await page.close();
  return { a, b };
}

function crop(png, box) {
  const out = new PNG({ width: box.width, height: box.height });
  for (let y = 0; y < box.height; y++)
    png.data.copy(
      out.data,
      y * box.width * 4,
      ((box.y + y) * png.width + box.x) * 4,
      ((box.y + y) * png.width + box.x + box.width) * 4,
    );
  return out;
}

/** The classes painted over the faded current image, `box` of it, each pixel scaled up `zoom` times. */
function classesPicture(a, b, box, zoom) {
  const pa = PNG.sync.read(a);
  const pb = PNG.sync.read(b);
  const width = Math.max(pa.width, pb.width);
  const height = Math.max(pa.height, pb.height);
  const classes = classifyPixels(pa, pb, width, height, OPTIONS.threshold, false);
  joinAntiAliasedEdges(classes, width, height);
  dropLonePixels(classes, width, height);
  const out = new PNG({ width: box.width * zoom, height: box.height * zoom });
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) {
      const i = (box.y + y) * width + box.x + x;
      const src = i * 4;
      const grey = Math.round(
        255 + (pb.data[src] * 0.3 + pb.data[src + 1] * 0.59 + pb.data[src + 2] * 0.11 - 255) * 0.35,
      );
      const rgb = COLOURS[classes[i]] ?? [grey, grey, grey];
      for (let dy = 0; dy < zoom; dy++) {
        for (let dx = 0; dx < zoom; dx++)
          out.data.set([...rgb, 255], ((y * zoom + dy) * box.width * zoom + x * zoom + dx) * 4);
      }
    }
  }
  return PNG.sync.write(out);
}

const around = (r, pad, png) => {
  const x = Math.max(0, r.x - pad);
  const y = Math.max(0, r.y - pad);
  return {
    x,
    y,
    width: Math.min(png.width - x, r.width + 2 * pad),
    height: Math.min(png.height - y, r.height + 2 * pad),
  };
};
const written = [];
const save = (file, bytes) => {
  writeFileSync(join(OUT, file), bytes);
  written.push(file);
};

try {
  // 1. The price change of issue 11: the diff image (top of the page) and the price zoomed with its classes.
  {
    const { a, b } = await pair('price-16px');
    const r = comparePngs(a, b, OPTIONS);
    const diff = PNG.sync.read(r.diffPng);
    save('diff-price-change.png', PNG.sync.write(crop(diff, { x: 0, y: 0, width: 640, height: 260 })));
    save('diff-price-zoom.png', classesPicture(a, b, around(r.regions[0], 6, diff), 8));
    console.log(`price-16px: regions ${JSON.stringify(r.regions)} diffPixels ${r.diffPixels} diffRatio ${r.diffRatio}`);
  }
  // 2. One 12 px digit whose shape mostly stays (3 → 8).
  {
    const { a, b } = await pair('digit-12px-3-to-8');
    const r = comparePngs(a, b, OPTIONS);
    save('diff-digit-zoom.png', classesPicture(a, b, around(r.regions[0], 8, PNG.sync.read(r.diffPng)), 10));
    console.log(`digit-12px-3-to-8: regions ${JSON.stringify(r.regions)}`);
  }
  // 3. Anti-aliasing speckle: the description paragraph rotated by 0.01deg. Nothing counted.
  {
    const { a, b } = await pair('aa-rotate-text');
    const r = comparePngs(a, b, OPTIONS);
    const pa = PNG.sync.read(a);
    const pb = PNG.sync.read(b);
    let x0 = Infinity,
      y0 = Infinity,
      x1 = -1,
      y1 = -1;
    for (let i = 0; i < pa.width * pa.height; i++) {
      if (pa.data.readUInt32LE(i * 4) === pb.data.readUInt32LE(i * 4)) continue;
      const x = i % pa.width,
        y = Math.floor(i / pa.width);
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
    const box = { x: x0, y: Math.max(0, y0 - 4), width: Math.min(260, x1 - x0 + 1), height: y1 - y0 + 9 };
    save('diff-aa-speckle.png', classesPicture(a, b, box, 4));
    console.log(
      `aa-rotate-text: regions ${JSON.stringify(r.regions)} (differing pixels within ${JSON.stringify(box)})`,
    );
  }
  // 4. One sentence near the bottom of a 4,700 px full-page capture.
  {
    const { a, b } = await pair('tall-page-sentence', true);
    const r = comparePngs(a, b, OPTIONS);
    const diff = PNG.sync.read(r.diffPng);
    const y = Math.max(0, r.regions[0].y - 80);
    save(
      'diff-tall-page.png',
      PNG.sync.write(crop(diff, { x: 0, y, width: 720, height: Math.min(diff.height - y, r.regions[0].height + 160) })),
    );
    console.log(
      `tall-page-sentence: ${diff.width}×${diff.height}, regions ${JSON.stringify(r.regions)} diffRatio ${r.diffRatio}`,
    );
  }
} finally {
  await browser.close();
  await site.close();
}
console.log(`wrote ${written.map((f) => `docs/images/${f}`).join(', ')}`);
