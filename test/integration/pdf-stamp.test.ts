// Watermarks and stamps on real Chromium PDFs: the stamp's page printed by a real Chromium (as the
// engine's renderStamp does, on a transparent background), placed with pdf-lib, then read back with
// poppler (text, pixels) and qpdf (structure tree, content streams).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFArray, PDFDocument, PDFRawStream, decodePDFRawStream, degrees } from 'pdf-lib';
import { type Browser, chromium } from 'playwright';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PdfStamp } from '../../src/domain/pdf-spec.js';
import { type StampLayer, STAMP_FIELD, applyStamp } from '../../src/pdf/stamp/apply-stamp.js';
import { type StampPageSpec, stampPage } from '../../src/pdf/stamp/stamp-page.js';
import { type DecodedPng, decodePng } from '../helpers/png.js';

const run = promisify(execFile);
/** Rasterised at 36 dpi: 2 pt a pixel. */
const DPI = 36;
const PX = DPI / 72;

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  dir = await mkdtemp(join(tmpdir(), 'pagewatch-stamp-'));
});
afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A tagged A4 document from Chromium, one page per entry of `pages` (HTML of the page's body). */
async function chromiumPdf(pages: string[], pageCss = ''): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    await page.setContent(
      `<!doctype html><html lang="en"><head><style>@page { margin: 0 } body { margin: 0 } ${pageCss}` +
        `section { height: 297mm; break-after: page; overflow: hidden }</style></head><body>` +
        pages.map((p) => `<section>${p}</section>`).join('') +
        '</body></html>',
    );
    return await page.pdf({ format: 'A4', tagged: true, printBackground: true, margin: { top: '0', bottom: '0' } });
  } finally {
    await page.close();
  }
}

/** What the engine's renderStamp does: the stamp's page, printed on a transparent background. */
async function renderStamp(spec: StampPageSpec): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    await page.setContent(spec.html);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
    return await page.pdf({
      width: `${spec.widthPt / 72}in`,
      height: `${spec.heightPt / 72}in`,
      printBackground: true,
      pageRanges: '1',
    });
  } finally {
    await page.close();
  }
}

const defaults = { opacity: 1, rotation: 0, position: 'center', offsetX: 0, offsetY: 0 } as const;

async function stamped(pdf: Uint8Array, stamp: PdfStamp, layer: StampLayer): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf);
  await applyStamp(doc, await renderStamp(stampPage(stamp, STAMP_FIELD[layer])), stamp, layer);
  return Buffer.from(await doc.save());
}

let fileCount = 0;
async function file(bytes: Uint8Array): Promise<string> {
  const path = join(dir, `${fileCount++}.pdf`);
  await writeFile(path, bytes);
  return path;
}

async function pageText(pdf: Uint8Array, page: number): Promise<string> {
  const path = await file(pdf);
  return (await run('pdftotext', ['-enc', 'UTF-8', '-f', `${page}`, '-l', `${page}`, path, '-'])).stdout;
}

async function raster(pdf: Uint8Array, page = 1, options: string[] = []): Promise<DecodedPng> {
  const path = await file(pdf);
  await run('pdftoppm', [
    ...options,
    '-r',
    `${DPI}`,
    '-png',
    '-f',
    `${page}`,
    '-l',
    `${page}`,
    '-singlefile',
    path,
    path,
  ]);
  return decodePng(await readFile(`${path}.png`));
}

/** The bounding box, in pixels, of the pixels `match` accepts; undefined when there are none. */
function boundsOf(png: DecodedPng, match: (c: { r: number; g: number; b: number }) => boolean) {
  let left = Infinity;
  let top = Infinity;
  let right = -1;
  let bottom = -1;
  let count = 0;
  for (let y = 0; y < png.height; y++)
    for (let x = 0; x < png.width; x++)
      if (match(png.pixel(x, y))) {
        count++;
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
  return count === 0
    ? undefined
    : { left, top, right, bottom, width: right - left + 1, height: bottom - top + 1, count };
}

const isRed = (c: { r: number; g: number; b: number }) => c.r > 200 && c.g < 60 && c.b < 60;
const isBlue = (c: { r: number; g: number; b: number }) => c.b > 200 && c.r < 60 && c.g < 60;

/** A PNG of solid colours: `stripes` side by side, each `width` × `height` pixels. */
function pngOf(width: number, height: number, stripes: [number, number, number][]): Buffer {
  const png = new PNG({ width: width * stripes.length, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < png.width; x++) {
      const [r, g, b] = stripes[Math.floor(x / width)]!;
      png.data.set([r, g, b, 255], (y * png.width + x) * 4);
    }
  return PNG.sync.write(png);
}

describe('text watermarks and stamps', () => {
  it('puts the text on the named pages only and leaves the pages’ own text intact', async () => {
    const pdf = await chromiumPdf(['<p>First page body</p>', '<p>Second page body</p>', '<p>Third page body</p>']);
    const out = await stamped(pdf, { ...defaults, text: 'Zebra Draft', pages: '1,3' }, 'over');
    const texts = await Promise.all([1, 2, 3].map((n) => pageText(out, n)));
    expect(texts[0]).toContain('Zebra Draft');
    expect(texts[1]).not.toContain('Zebra Draft');
    expect(texts[2]).toContain('Zebra Draft');
    expect(texts[0]).toContain('First page body');
    expect(texts[1]).toContain('Second page body');
    expect(texts[2]).toContain('Third page body');
  });

  it('draws a watermark behind an opaque box and a stamp over it, on a transparent background', async () => {
    const pdf = await chromiumPdf(['<div style="height: 100%; background: rgb(0 0 255)"></div>']);
    const stamp = { ...defaults, text: 'MMMM', fontSize: 120, color: 'rgb(255 0 0)' };
    const under = await raster(await stamped(pdf, stamp, 'under'));
    expect(boundsOf(under, isRed)).toBeUndefined();
    const over = await raster(await stamped(pdf, stamp, 'over'));
    const red = boundsOf(over, isRed);
    expect(red?.count).toBeGreaterThan(500);
    // Around the glyphs the page's blue still shows: the stamp's page has no background of its own.
    expect(isBlue(over.pixel(red!.left - 3, red!.top + 2))).toBe(true);
    expect(isBlue(over.pixel(over.width / 2 - (over.width % 2) / 2, red!.bottom + 3))).toBe(true);
  });
  it('draws text in any script with its font embedded, so it is extracted as written', async () => {
    const pdf = await chromiumPdf(['<p>Body</p>']);
    const out = await stamped(pdf, { ...defaults, text: 'Entwurf 草稿 مسودة', position: 'bottom' }, 'over');
    // pdftotext wraps right-to-left runs in directional embedding marks.
    const words = (await pageText(out, 1)).replace(/[\u202a-\u202e]/g, '').split(/\s+/);
    expect(words).toEqual(expect.arrayContaining(['Entwurf', '草稿', 'مسودة', 'Body']));
  });

  it.each(['top-left', 'bottom-right'] as const)(
    'sets upright text against the %s edges exactly, despite its estimated box',
    async (position) => {
      const pdf = await chromiumPdf(['<p style="margin: 0">&nbsp;</p>']);
      const stamp = { ...defaults, text: 'Illicit', fontSize: 40, color: 'rgb(255 0 0)', position };
      const png = await raster(await stamped(pdf, stamp, 'over'));
      const red = boundsOf(png, isRed)!;
      // The ink starts within a side bearing of the edge; vertically within the line's half-leading and
      // the font's room above its capitals (top) or below its baseline (bottom): about 0.3 em.
      const gapX = position === 'top-left' ? red.left : png.width - 1 - red.right;
      const gapY = position === 'top-left' ? red.top : png.height - 1 - red.bottom;
      expect(gapX).toBeLessThanOrEqual(3 * PX * 2);
      expect(gapY).toBeLessThanOrEqual(0.35 * 40 * PX);
    },
  );
});

describe('image stamps: opacity, position, rotation', () => {
  const blue = pngOf(100, 100, [[0, 0, 255]]);
  let blank: Buffer;
  beforeAll(async () => {
    blank = await chromiumPdf(['<p style="margin: 400px 0 0 200px">x</p>']);
  });

  it('draws a PNG at its natural size, blended with the opacity asked', async () => {
    const out = await raster(
      await stamped(blank, { ...defaults, image: { contentType: 'image/png', bytes: blue }, opacity: 0.5 }, 'over'),
    );
    const centre = out.pixel(Math.floor(out.width / 2), Math.floor(out.height / 2));
    // Half blue over white: (127.5, 127.5, 255).
    expect(Math.abs(centre.r - 128)).toBeLessThanOrEqual(8);
    expect(Math.abs(centre.g - 128)).toBeLessThanOrEqual(8);
    expect(centre.b).toBeGreaterThanOrEqual(248);
    // 100 px at 96 dpi = 75 pt = 37.5 px at 36 dpi.
    const tinted = boundsOf(out, (c) => c.b > 200 && c.r < 180 && c.r > 80);
    expect(tinted?.width).toBeGreaterThanOrEqual(36);
    expect(tinted?.width).toBeLessThanOrEqual(39);
  });

  it.each([
    ['top-left', 10, 20],
    ['bottom-right', 30, 0],
    ['top', 0, 40],
  ] as const)('places the stamp %s, offsets %d, %d pt from the edges', async (position, offsetX, offsetY) => {
    const image = { contentType: 'image/png', bytes: blue };
    const out = await raster(
      await stamped(blank, { ...defaults, image, width: 100, position, offsetX, offsetY }, 'over'),
    );
    const box = boundsOf(out, isBlue)!;
    const near = (px: number, pt: number) => expect(Math.abs(px - pt * PX)).toBeLessThanOrEqual(1.5);
    near(box.width, 100);
    near(box.height, 100);
    if (position === 'top-left') {
      near(box.left, offsetX);
      near(box.top, offsetY);
    } else if (position === 'bottom-right') {
      near(out.width - 1 - box.right, offsetX);
      near(out.height - 1 - box.bottom, offsetY);
    } else {
      near(box.left + box.width / 2, out.width / PX / 2);
      near(box.top, offsetY);
    }
  });

  it('turns a wide stamp tall at rotation 90, counter-clockwise', async () => {
    const redBlue = pngOf(100, 50, [
      [255, 0, 0],
      [0, 0, 255],
    ]);
    const image = { contentType: 'image/png', bytes: redBlue };
    const out = await raster(await stamped(blank, { ...defaults, image, width: 200, rotation: 90 }, 'over'));
    const red = boundsOf(out, isRed)!;
    const blueBox = boundsOf(out, isBlue)!;
    expect(red.height).toBeGreaterThan(red.width * 1.5);
    // Counter-clockwise: the red left half ends up at the bottom.
    expect(red.top).toBeGreaterThan(blueBox.bottom - 2);
  });

  it.each([90, 180, 270])(
    'keeps the stamp upright and top-left for the reader on a page with /Rotate %d',
    async (turn) => {
      const doc = await PDFDocument.load(blank);
      doc.getPage(0).setRotation(degrees(turn));
      const rotated = await doc.save();
      const redBlue = pngOf(100, 20, [
        [255, 0, 0],
        [0, 0, 255],
      ]);
      const image = { contentType: 'image/png', bytes: redBlue };
      const out = await raster(
        await stamped(rotated, { ...defaults, image, width: 200, position: 'top-left' }, 'over'),
      );
      expect(out.width > out.height).toBe(turn !== 180); // the reader sees the page turned
      const red = boundsOf(out, isRed)!;
      const blueBox = boundsOf(out, isBlue)!;
      expect(red.width).toBeGreaterThan(red.height * 3); // wide, as the image is
      expect(red.right).toBeLessThan(blueBox.left + 2); // red on the left: not turned or mirrored
      expect(red.left).toBeLessThanOrEqual(1); // top-left as the reader sees it
      expect(red.top).toBeLessThanOrEqual(1);
    },
  );

  it('measures positions from the CropBox, not the MediaBox', async () => {
    const doc = await PDFDocument.load(blank);
    doc.getPage(0).setCropBox(100, 150, 300, 400);
    const image = { contentType: 'image/png', bytes: blue };
    const out = await raster(
      await stamped(await doc.save(), { ...defaults, image, width: 50, position: 'bottom-right' }, 'over'),
      1,
      ['-cropbox'],
    );
    expect([out.width, out.height]).toEqual([300 * PX, 400 * PX]); // what a reader shows
    const box = boundsOf(out, isBlue)!;
    expect(out.width - 1 - box.right).toBeLessThanOrEqual(1);
    expect(out.height - 1 - box.bottom).toBeLessThanOrEqual(1);
    expect(box.width).toBeGreaterThanOrEqual(50 * PX - 1);
  });
});

/** The object graph qpdf reads: each object's value by "obj:N G R". */
async function qpdfObjects(pdf: Uint8Array): Promise<Record<string, { value?: unknown; stream?: { dict: unknown } }>> {
  const { stdout } = await run('qpdf', ['--json', '--json-key=qpdf', await file(pdf)], { maxBuffer: 64 << 20 });
  const [, objects] = (JSON.parse(stdout) as { qpdf: [unknown, Record<string, { value?: unknown }>] }).qpdf;
  return objects;
}

/** The /S of every structure element (sorted), and whether the catalog has a StructTreeRoot. */
async function structure(pdf: Uint8Array) {
  const objects = await qpdfObjects(pdf);
  const types: string[] = [];
  let root = false;
  for (const { value } of Object.values(objects)) {
    const dict = value as Record<string, unknown> | undefined;
    if (dict?.['/Type'] === '/StructElem' || (dict?.['/S'] !== undefined && dict['/P'] !== undefined))
      types.push(String(dict['/S']));
    if (dict?.['/Type'] === '/Catalog' && dict['/StructTreeRoot'] !== undefined) root = true;
  }
  return { root, types: types.sort() };
}

describe('tags', () => {
  it('leaves the structure tree as it was and marks the stamp as an artifact', async () => {
    const pdf = await chromiumPdf(['<h1>Title</h1><p>Para <a href="https://example.com/">link</a></p>', '<p>Two</p>']);
    const before = await structure(pdf);
    expect(before.root).toBe(true);
    expect(before.types).toEqual(expect.arrayContaining(['/H1', '/P', '/Link']));
    const watermarked = await stamped(pdf, { ...defaults, text: 'Draft', opacity: 0.3, rotation: 45 }, 'under');
    const out = await stamped(watermarked, { ...defaults, text: 'Approved', position: 'top-right' }, 'over');
    expect(await structure(out)).toEqual(before);
    await run('qpdf', ['--check', await file(out)]);

    // Every page's content, decoded: each drawing of a stamp sits inside /Artifact BMC … EMC, the
    // watermark's before the page's own content, the stamp's after it.
    const doc = await PDFDocument.load(out);
    for (const page of doc.getPages()) {
      const streams = page.node.Contents() as PDFArray;
      const content = streams
        .asArray()
        .map((ref) =>
          Buffer.from(decodePDFRawStream(doc.context.lookup(ref) as PDFRawStream).decode()).toString('latin1'),
        )
        .join('\n');
      const drawings = [
        ...content.matchAll(/\/Artifact BMC\s+q\s+\/StampGS\S*\s+gs\s+[-\d.\s]+cm\s+\/Stamp\S*\s+Do\s+Q\s+EMC/g),
      ];
      expect(drawings).toHaveLength(2);
      expect(content.match(/\bDo\b/g)?.length).toBe(2 + (content.match(/\/X\w+\s+Do\b/g)?.length ?? 0));
      // The watermark before the page's own text, the stamp after it.
      expect(drawings[0]!.index).toBeLessThan(content.indexOf('BT'));
      expect(drawings[1]!.index).toBeGreaterThan(content.lastIndexOf('ET'));
    }
  });
});
