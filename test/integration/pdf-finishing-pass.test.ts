// The whole finishing pass of the engine on a real render: the archive steps and a watermark run in the
// engine's pdf-lib worker, in its order, then qpdf's last rewrite — and the one file that comes out is
// PDF/A-3b, PDF/UA-1 and a Factur-X e-invoice at once, with its tags intact. A refusal raised inside the
// worker (a 422 naming what PDF/UA lacks) reaches the caller whole, code and details.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PdfStamp } from '../../src/domain/pdf-spec.js';
import { AppError } from '../../src/errors.js';
import { QpdfPdfEngine } from '../../src/pdf/pdf-engine.js';
import { projectRoot } from '../../src/project-root.js';
import { conformanceFailures, pdfObjects, structureTypes } from '../helpers/pdf-conformance.js';
import { pdftotext } from '../helpers/poppler.js';

const FIXTURES = join(projectRoot(), 'test/fixtures/facturx');
let browser: Browser;
let engine: QpdfPdfEngine;
let stampsRendered = 0;

async function print(html: string): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    await page.setContent(html);
    return await page.pdf({ format: 'A4', printBackground: true, tagged: true, outline: true });
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  // What the service's renderStamp does: the stamp's page on a transparent background, untagged.
  const renderStamp = async ({ html, widthPt, heightPt }: { html: string; widthPt: number; heightPt: number }) => {
    stampsRendered++;
    const page = await browser.newPage();
    try {
      await page.setContent(html);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
      const size = { width: `${widthPt / 72}in`, height: `${heightPt / 72}in` };
      return await page.pdf({ ...size, printBackground: true, pageRanges: '1', tagged: false });
    } finally {
      await page.close();
    }
  };
  engine = new QpdfPdfEngine({ timeoutMs: 60_000, memoryMb: 1024, maxPages: 5000, maxFiles: 50 }, renderStamp);
});

afterAll(async () => {
  await browser?.close();
});

const watermark: PdfStamp = { text: 'DRAFT', opacity: 0.3, rotation: 45, position: 'center', offsetX: 0, offsetY: 0 };

it('makes one file that is PDF/A-3b, PDF/UA-1 and an e-invoice, watermarked, with its tags', async () => {
  const html = await readFile(join(FIXTURES, 'invoice-page.html'), 'utf8');
  const xml = await readFile(join(FIXTURES, 'en16931-invoice.xml'));
  const rendered = await print(html);
  const before = structureTypes(await pdfObjects(rendered));

  // No pdfa given: the e-invoice makes the file PDF/A-3b on its own.
  const out = await engine.finish(rendered, {
    pdfua: true,
    facturx: { xml, profile: 'EN 16931' },
    watermark,
    metadata: { author: 'Ada Lovelace' },
  });
  expect(out.kind).toBe('pdf');
  if (out.kind !== 'pdf') return;
  expect(stampsRendered).toBe(1);
  expect(
    await conformanceFailures(out.bytes, {
      pdfa: 'PDF/A-3b',
      pdfua: true,
      structureBefore: before,
      facturx: { xml, fileName: 'factur-x.xml', relationship: 'Alternative', level: 'EN 16931' },
    }),
  ).toEqual([]);
  const text = await pdftotext(out.bytes);
  // The watermark is drawn (turned 45°, so poppler reads its letters on lines of their own).
  expect(text.replace(/\s+/g, '')).toContain('DRAFT');
  expect(text.replace(/\s+/g, ' ')).toContain('Invoice'); // and the page's own text is still there
});

it('carries a refusal from inside the worker out whole: PDF/UA without a title is a 422 naming it', async () => {
  const untitled = await print('<!doctype html><html lang="en"><body><h1>No title here</h1></body></html>');
  const refusal = await engine.finish(untitled, { pdfua: true }).catch((err: unknown) => err);
  expect(refusal).toBeInstanceOf(AppError);
  expect(refusal).toMatchObject({ status: 422, extra: { details: [{ path: 'metadata.title' }] } });
  expect((refusal as AppError).message).toMatch(/title/);
  // With the title given as metadata, the same page passes.
  const out = await engine.finish(untitled, { pdfua: true, metadata: { title: 'A title' } });
  expect(out.kind === 'pdf' && (await conformanceFailures(out.bytes, { pdfua: true }))).toEqual([]);
});

it('refuses option combinations before any work, with every problem named', async () => {
  const refusal = await engine
    .finish(Buffer.from('%PDF-1.7 never read'), {
      pdfa: 'PDF/A-2b',
      embeds: [{ name: 'data.csv', contentType: 'text/csv', relationship: 'Data', bytes: Buffer.from('a,b') }],
      encrypt: {
        ownerPassword: 'owner-secret',
        permissions: { print: 'full', copy: false, modify: false, annotate: false, fillForms: false, assemble: false },
      },
    })
    .catch((err: unknown) => err);
  expect(refusal).toMatchObject({ status: 400, code: 'invalid_request' });
  const paths = (refusal as AppError).extra.details!.map((d) => d.path);
  expect(paths).toEqual(expect.arrayContaining(['embeds', 'encrypt']));
  expect(JSON.stringify(refusal)).not.toContain('owner-secret');
});
