// The archive steps on real Chromium output (an invoice page with a table, an image, a link and CJK text,
// tagged as the service prints it): each finishing is applied with pdf-lib, saved, passed through qpdf (as
// the engine's last pass, which adds the trailer /ID) and checked with qpdf, poppler and pdfdetach.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PdfFinishing } from '../../src/domain/pdf-spec.js';
import { AppError } from '../../src/errors.js';
import {
  checkArchiveOptions,
  finishArchive,
  readArchiveClaims,
  type DeclaredPage,
} from '../../src/pdf/archive/index.js';
import { projectRoot } from '../../src/project-root.js';
import { pdffonts } from '../helpers/poppler.js';
import { conformanceFailures, pdfObjects, structureTypes } from '../helpers/pdf-conformance.js';

const run = promisify(execFile);
const FIXTURES = join(projectRoot(), 'test/fixtures/facturx');
const NOW = new Date('2026-11-27T10:00:00Z');

let browser: Browser;
let invoicePdf: Buffer;
let invoiceDeclared: DeclaredPage;
let untitledPdf: Buffer;
let untitledDeclared: DeclaredPage;
let invoiceXml: Buffer;
let structureBefore: Record<string, number>;
let work: string;

/** A page printed as src/render/capture/pdf.ts prints (tagged, with an outline), and what it declared. */
async function print(html: string): Promise<{ pdf: Buffer; declared: DeclaredPage }> {
  const page = await browser.newPage();
  try {
    await page.setContent(html);
    const declared = { title: await page.title(), language: await page.evaluate(() => document.documentElement.lang) };
    return { pdf: await page.pdf({ format: 'A4', printBackground: true, tagged: true, outline: true }), declared };
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  work = await mkdtemp(join(tmpdir(), 'pagewatch-archive-'));
  const html = await readFile(join(FIXTURES, 'invoice-page.html'), 'utf8');
  ({ pdf: invoicePdf, declared: invoiceDeclared } = await print(html));
  // The same page without <title> and without <html lang>: Chromium still writes /Title (its URL) and /Lang.
  ({ pdf: untitledPdf, declared: untitledDeclared } = await print(
    html.replace(/<title>.*<\/title>/, '').replace('<html lang="en">', '<html>'),
  ));
  invoiceXml = await readFile(join(FIXTURES, 'en16931-invoice.xml'));
  structureBefore = structureTypes(await pdfObjects(invoicePdf));
});

afterAll(async () => {
  await browser?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

let serial = 0;
/** The engine's pass: load once, apply, save once, then qpdf (which writes the trailer /ID). */
async function finished(finishing: PdfFinishing, input = invoicePdf, declared?: DeclaredPage): Promise<Buffer> {
  const doc = await PDFDocument.load(input, { updateMetadata: false });
  finishArchive(doc, finishing, NOW, declared ?? (input === untitledPdf ? untitledDeclared : invoiceDeclared));
  const mid = join(work, `mid-${++serial}.pdf`);
  const out = join(work, `out-${serial}.pdf`);
  await writeFile(mid, await doc.save());
  await run('qpdf', [mid, out]);
  return readFile(out);
}

async function refusal(finishing: PdfFinishing, input = invoicePdf, declared?: DeclaredPage): Promise<AppError> {
  const err = await finished(finishing, input, declared).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

const invoice = (profile = 'EN 16931', xml = invoiceXml) => ({ xml, profile });

describe('the input is what the brief says Chromium prints', () => {
  it('tagged, with a structure tree of several element types, /Lang and a Type 3 font for the CJK text', async () => {
    expect(Object.keys(structureBefore)).toEqual(expect.arrayContaining(['/Table', '/Figure', '/Link']));
    expect((await pdffonts(invoicePdf)).some((f) => f.type === 'Type 3')).toBe(true);
    expect((await pdfObjects(invoicePdf)).trailer['/ID']).toBeUndefined();
  });
});

describe('metadata', () => {
  it('writes the Info dictionary and the same values to the XMP, escaped, with custom keys under pdfx', async () => {
    const bytes = await finished({
      metadata: {
        title: 'Invoice <42> & "friends"',
        author: "Ann O'Neil & Co",
        subject: 'Rendering, November',
        keywords: 'invoice, 2026',
        creator: 'Pagewatch',
        producer: 'Pagewatch PDF engine',
        creationDate: '2026-11-01T08:30:00+01:00',
        language: 'fr-FR',
        custom: { InvoiceNumber: 'INV-2026-0042', 'Cost.Centre': '</x:xmpmeta>' },
      },
    });
    expect(
      await conformanceFailures(bytes, {
        structureBefore,
        info: { Title: 'Invoice <42> & "friends"', Author: "Ann O'Neil & Co" },
      }),
    ).toEqual([]);
    const pdf = await pdfObjects(bytes);
    const catalog = pdf.get(pdf.trailer['/Root']) as Record<string, unknown>;
    expect(catalog['/Lang']).toBe('u:fr-FR');
    const { stdout: xmp } = await run('pdfinfo', ['-meta', await save(bytes)]);
    expect(xmp).toContain('<pdfx:InvoiceNumber>INV-2026-0042</pdfx:InvoiceNumber>');
    expect(xmp).toContain('<pdfx:Cost.Centre>&lt;/x:xmpmeta&gt;</pdfx:Cost.Centre>');
    expect(xmp).toContain('<xmp:CreateDate>2026-11-01T07:30:00Z</xmp:CreateDate>');
    expect(xmp).toContain('<xmp:ModifyDate>2026-11-27T10:00:00Z</xmp:ModifyDate>');
    // Metadata alone claims no conformance.
    expect(readArchiveClaims(xmp)).toEqual({ pdfa: undefined, pdfua: undefined });
  });

  it('refuses a custom key that cannot be an XMP property, or a standard key (400 naming it)', async () => {
    const err = await refusal({ metadata: { custom: { 'two words': 'x', Title: 'y' } } });
    expect(err.status).toBe(400);
    expect(err.extra.details?.map((d) => d.path)).toEqual(['metadata.custom.two words', 'metadata.custom.Title']);
  });
});

async function save(bytes: Buffer): Promise<string> {
  const file = join(work, `read-${++serial}.pdf`);
  await writeFile(file, bytes);
  return file;
}

describe('PDF/A', () => {
  for (const pdfa of ['PDF/A-2b', 'PDF/A-3b'] as const)
    it(`${pdfa}: the claim, sRGB output intent, fonts, no actions, tags kept`, async () => {
      const bytes = await finished({ pdfa });
      expect(await conformanceFailures(bytes, { pdfa, structureBefore })).toEqual([]);
      const doc = await PDFDocument.load(bytes);
      expect(readArchiveClaims(doc)).toEqual({ pdfa: pdfa.replace('B', 'b'), pdfua: undefined });
    });

  it('PDF/A-3b with attachments: each in the name tree and /AF with its relationship, bytes back intact', async () => {
    const attachments = [
      {
        name: 'notes.txt',
        contentType: 'text/plain',
        relationship: 'Supplement' as const,
        bytes: Buffer.from('Paid by transfer.\n'),
      },
      {
        name: 'données.csv',
        contentType: 'text/csv',
        relationship: 'Data' as const,
        description: 'Lines',
        bytes: Buffer.from('a,b\n1,2\n'),
      },
    ];
    const bytes = await finished({ pdfa: 'PDF/A-3b', embeds: attachments });
    expect(await conformanceFailures(bytes, { pdfa: 'PDF/A-3b', structureBefore, attachments })).toEqual([]);
  });

  it("keeps an uploaded PDF's attachments, even from a name tree with /Kids", async () => {
    const doc = await PDFDocument.load(invoicePdf, { updateMetadata: false });
    const old = Buffer.from('attached before\n');
    const stream = doc.context.register(doc.context.flateStream(old, { Type: 'EmbeddedFile' }));
    const spec = doc.context.register(
      doc.context.obj({
        Type: 'Filespec',
        F: PDFString.of('old.txt'),
        UF: PDFHexString.fromText('old.txt'),
        EF: { F: stream },
      }),
    );
    const leaf = doc.context.register(
      doc.context.obj({
        Names: [PDFString.of('old.txt'), spec],
        Limits: [PDFString.of('old.txt'), PDFString.of('old.txt')],
      }),
    );
    doc.catalog.set(PDFName.of('Names'), doc.context.obj({ EmbeddedFiles: doc.context.obj({ Kids: [leaf] }) }));
    const withKids = Buffer.from(await doc.save());

    const added = {
      name: 'new.txt',
      contentType: 'text/plain',
      relationship: 'Supplement' as const,
      bytes: Buffer.from('new'),
    };
    const bytes = await finished({ embeds: [added] }, withKids);
    const { stdout } = await run('pdfdetach', ['-list', await save(bytes)]);
    expect(stdout.split('\n').slice(1, 3).sort()).toEqual(['1: new.txt', '2: old.txt'].sort());
    // The old attachment has no /AF entry: expected are the new one, and the count of all.
    const failures = await conformanceFailures(bytes, { attachments: [added] });
    expect(failures).toEqual(['attachments: pdfdetach lists 2, expected 1']);
  });

  it('removes a JavaScript open action and additional actions from the input', async () => {
    const doc = await PDFDocument.load(invoicePdf, { updateMetadata: false });
    const js = doc.context.obj({ Type: 'Action', S: 'JavaScript', JS: 'app.alert(1)' });
    doc.catalog.set(PDFName.of('OpenAction'), doc.context.register(js));
    doc.catalog.set(PDFName.of('AA'), doc.context.obj({ WC: doc.context.register(js) }));
    const withJs = Buffer.from(await doc.save());
    expect((await conformanceFailures(withJs, { structureBefore })).join('\n')).toMatch(/JavaScript/);

    const archived = await finished({ pdfa: 'PDF/A-2b' }, withJs);
    expect(await conformanceFailures(archived, { pdfa: 'PDF/A-2b', structureBefore })).toEqual([]);
  });

  it('refuses attachments and an e-invoice with PDF/A-2b, and encryption with any PDF/A (400 naming each)', async () => {
    const embeds = [
      { name: 'a.txt', contentType: 'text/plain', relationship: 'Data' as const, bytes: Buffer.from('a') },
    ];
    const err = await refusal({ pdfa: 'PDF/A-2b', embeds, facturx: invoice() });
    expect(err.status).toBe(400);
    expect(err.extra.details?.map((d) => d.path)).toEqual(['embeds', 'facturx']);
    const encrypt = {
      ownerPassword: 'owner-secret',
      permissions: {
        print: 'full' as const,
        copy: true,
        modify: false,
        annotate: false,
        fillForms: false,
        assemble: false,
      },
    };
    expect(checkArchiveOptions({ pdfa: 'PDF/A-3b', encrypt }).map((d) => d.path)).toEqual(['encrypt']);
    expect(checkArchiveOptions({ facturx: invoice(), encrypt }).map((d) => d.path)).toEqual(['encrypt']);
    expect(JSON.stringify(checkArchiveOptions({ pdfa: 'PDF/A-3b', encrypt }))).not.toContain('owner-secret');
  });
});

describe('PDF/UA', () => {
  it('PDF/UA-1 alone: pdfuaid, dc:title, DisplayDocTitle, /Lang, tags kept; no PDF/A claim', async () => {
    const bytes = await finished({ pdfua: true });
    expect(await conformanceFailures(bytes, { pdfua: true, structureBefore })).toEqual([]);
    expect(readArchiveClaims(await PDFDocument.load(bytes))).toEqual({ pdfa: undefined, pdfua: 'PDF/UA-1' });
  });

  it('PDF/A-3b and PDF/UA-1 in one file, pdfuaid declared as a PDF/A extension schema', async () => {
    const bytes = await finished({ pdfa: 'PDF/A-3b', pdfua: true });
    expect(await conformanceFailures(bytes, { pdfa: 'PDF/A-3b', pdfua: true, structureBefore })).toEqual([]);
    expect(readArchiveClaims(await PDFDocument.load(bytes))).toEqual({ pdfa: 'PDF/A-3b', pdfua: 'PDF/UA-1' });
  });

  it('takes the title and language from metadata when the page has neither', async () => {
    const bytes = await finished(
      { pdfua: true, pdfa: 'PDF/A-2b', metadata: { title: 'Invoice', language: 'en' } },
      untitledPdf,
    );
    expect(await conformanceFailures(bytes, { pdfa: 'PDF/A-2b', pdfua: true, info: { Title: 'Invoice' } })).toEqual([]);
  });

  it('sets what Chromium sets but an uploaded PDF may lack: printable annotations, DisplayDocTitle, /Tabs', async () => {
    const doc = await PDFDocument.load(invoicePdf, { updateMetadata: false });
    const annots = doc.getPages()[0]!.node.lookup(PDFName.of('Annots'), PDFArray);
    annots.lookup(0, PDFDict).set(PDFName.of('F'), PDFNumber.of(2)); // Hidden, not Print
    doc.catalog.delete(PDFName.of('ViewerPreferences'));
    doc.getPages()[0]!.node.delete(PDFName.of('Tabs'));
    const broken = Buffer.from(await doc.save());
    const before = (await conformanceFailures(broken, { pdfa: 'PDF/A-3b', pdfua: true })).join('\n');
    expect(before).toMatch(/annotation flags/);
    expect(before).toMatch(/DisplayDocTitle/);
    expect(before).toMatch(/tab order/);

    const bytes = await finished({ pdfa: 'PDF/A-3b', pdfua: true }, broken);
    expect(await conformanceFailures(bytes, { pdfa: 'PDF/A-3b', pdfua: true, structureBefore })).toEqual([]);
  });

  it('refuses a page without <title> or lang, naming both (422 render_failed)', async () => {
    const err = await refusal({ pdfua: true }, untitledPdf);
    expect(err.status).toBe(422);
    expect(err.code).toBe('render_failed');
    expect(err.extra.details?.map((d) => d.path)).toEqual(['metadata.title', 'metadata.language']);
    expect(err.message).toMatch(/title.*language/);
  });

  it('refuses an untagged PDF (422)', async () => {
    const doc = await PDFDocument.load(invoicePdf, { updateMetadata: false });
    doc.catalog.delete(PDFName.of('StructTreeRoot'));
    const err = await refusal({ pdfua: true }, Buffer.from(await doc.save()));
    expect(err.status).toBe(422);
    expect(err.extra.details?.map((d) => d.path)).toEqual(['pdfua']);
  });
});

describe('Factur-X', () => {
  it('EN 16931 (given as the ZUGFeRD alias EN16931): factur-x.xml, Alternative, fx XMP, PDF/A-3b forced', async () => {
    const bytes = await finished({ facturx: invoice('EN16931'), pdfua: true });
    const facturx = { xml: invoiceXml, fileName: 'factur-x.xml', relationship: 'Alternative', level: 'EN 16931' };
    expect(await conformanceFailures(bytes, { pdfa: 'PDF/A-3b', pdfua: true, structureBefore, facturx })).toEqual([]);
  });

  it('MINIMUM is Data; XRECHNUNG is xrechnung.xml', async () => {
    const minimum = await finished({ facturx: invoice('minimum') });
    expect(
      await conformanceFailures(minimum, {
        pdfa: 'PDF/A-3b',
        facturx: { xml: invoiceXml, fileName: 'factur-x.xml', relationship: 'Data', level: 'MINIMUM' },
      }),
    ).toEqual([]);
    const xrechnung = await finished({ facturx: invoice('XRECHNUNG') });
    expect(
      await conformanceFailures(xrechnung, {
        pdfa: 'PDF/A-3b',
        facturx: { xml: invoiceXml, fileName: 'xrechnung.xml', relationship: 'Alternative', level: 'XRECHNUNG' },
      }),
    ).toEqual([]);
  });

  it('refuses XML that is not well formed, has a DOCTYPE, or another root (400 facturx.xml)', async () => {
    const cases: [string, RegExp][] = [
      [
        '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">',
        /well-formed/,
      ],
      [
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">&a;</rsm:CrossIndustryInvoice>',
        /DOCTYPE/,
      ],
      ['<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>', /root element/],
      ['<rsm:CrossIndustryInvoice xmlns:rsm="urn:example:other"/>', /root element/],
    ];
    for (const [xml, message] of cases) {
      const err = await refusal({ facturx: invoice('EN 16931', Buffer.from(xml)) });
      expect(err.status).toBe(400);
      expect(err.extra.details?.map((d) => d.path)).toEqual(['facturx.xml']);
      expect(err.extra.details?.[0]?.message).toMatch(message);
    }
    const unknown = await refusal({ facturx: invoice('PLATINUM') });
    expect(unknown.extra.details?.map((d) => d.path)).toEqual(['facturx.profile']);
  });

  it('docs/pdf-conformance.md shows the very invoice XML the tests attach', async () => {
    const doc = await readFile(join(projectRoot(), 'docs/pdf-conformance.md'), 'utf8');
    expect(doc).toContain(invoiceXml.toString('utf8').trim());
  });

  it('refuses an attachment named like the invoice', async () => {
    const embeds = [
      { name: 'factur-x.xml', contentType: 'text/xml', relationship: 'Data' as const, bytes: Buffer.from('<a/>') },
    ];
    const err = await refusal({ facturx: invoice(), embeds });
    expect(err.extra.details?.map((d) => d.path)).toEqual(['embeds[0].name']);
  });
});
