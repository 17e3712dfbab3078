// Each PDF tool through the real engine (qpdf, the pdf-lib worker), its output read back with qpdf and
// poppler: merge, split, encrypt, flatten, the final rewrite, the limits at and over their edges, abort.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PdfEncryption } from '../../src/domain/pdf-spec.js';
import { AppError } from '../../src/errors.js';
import { QpdfPdfEngine, type PdfEngineLimits } from '../../src/pdf/pdf-engine.js';
import { projectRoot } from '../../src/project-root.js';
import { listProcesses } from '../helpers/processes.js';
import { until } from '../helpers/until.js';
import { pdftotext } from '../helpers/poppler.js';

const run = promisify(execFile);
const LIMITS: PdfEngineLimits = { timeoutMs: 20_000, memoryMb: 512, maxPages: 12, maxFiles: 3 };
const noStamp = () => Promise.reject(new Error('no stamps here'));
const engine = new QpdfPdfEngine(LIMITS, noStamp);

/** A PDF of `pages` pages, each saying "<label> page <n>". */
async function makePdf(label: string, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++)
    doc.addPage([300, 300]).drawText(`${label} page ${n}`, { x: 20, y: 150, font, size: 14 });
  return Buffer.from(await doc.save());
}

/** A one-page form with a text field holding `value`. */
async function makeForm(value: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 300]);
  const field = doc.getForm().createTextField('customer');
  field.setText(value);
  field.addToPage(page, { x: 20, y: 200, width: 240, height: 30 });
  return Buffer.from(await doc.save());
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagewatch-pdf-tools-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs qpdf on `bytes` (a file in the test's directory) with `args`; stdout, or the failure. */
async function qpdf(bytes: Uint8Array, args: string[]): Promise<string> {
  const file = join(dir, `q-${process.hrtime.bigint()}.pdf`);
  await writeFile(file, bytes);
  return (await run('qpdf', [...args, file])).stdout;
}
/** Our own qpdf (or prlimit) children: other tests on the machine run qpdf too. */
const ourQpdf = () => listProcesses().filter((p) => p.ppid === process.pid && /qpdf|prlimit/.test(p.comm));
const pageCount = async (bytes: Uint8Array) => Number((await qpdf(bytes, ['--show-npages'])).trim());

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const ENCRYPT: PdfEncryption = {
  userPassword: 'reader pass',
  ownerPassword: 'owner pass',
  permissions: { print: 'low', copy: false, modify: false, annotate: true, fillForms: true, assemble: false },
};

describe('merge', () => {
  it('joins the inputs in the order given', async () => {
    const product = await engine.process(
      [
        { bytes: await makePdf('Alpha', 2), path: 'files[0]' },
        { bytes: await makePdf('Beta', 3), path: 'files[1]' },
      ],
      {},
    );
    expect(product).toMatchObject({ kind: 'pdf', pageCount: 5 });
    expect(await pageCount(product.bytes)).toBe(5);
    const text = await pdftotext(product.bytes);
    expect(text.indexOf('Alpha page 2')).toBeLessThan(text.indexOf('Beta page 1'));
    expect(text.indexOf('Beta page 1')).toBeLessThan(text.indexOf('Beta page 3'));
    // Written by qpdf's join, with no other option: its /ID is the join's, no second rewrite needed.
    expect(await qpdf(product.bytes, ['--show-object=trailer'])).toMatch(/\/ID \[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]/);
  });

  it('takes pdf.maxFiles inputs and refuses one more (400 naming files)', async () => {
    const one = await makePdf('One', 1);
    const inputs = (n: number) => Array.from({ length: n }, (_, i) => ({ bytes: one, path: `files[${i}]` }));
    expect(await engine.process(inputs(3), {})).toMatchObject({ kind: 'pdf', pageCount: 3 });
    const error = await refusal(engine.process(inputs(4), {}));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('4 PDFs were sent; one call takes at most 3 (pdf.maxFiles).');
    expect(error.extra.details?.[0]?.path).toBe('files');
  });

  it('takes pdf.maxPages pages joined and refuses one more (422 with the count and the limit)', async () => {
    const six = await makePdf('Six', 6);
    const at = await engine.process(
      [
        { bytes: six, path: 'files[0]' },
        { bytes: six, path: 'files[1]' },
      ],
      {},
    );
    expect(at).toMatchObject({ kind: 'pdf', pageCount: 12 });
    const error = await refusal(
      engine.process(
        [
          { bytes: six, path: 'files[0]' },
          { bytes: await makePdf('Seven', 7), path: 'files[1]' },
        ],
        {},
      ),
    );
    expect(error.code).toBe('invalid_pdf');
    expect(error.message).toBe(
      'the joined PDF has 13 pages, more than the limit of 12 (pdf.maxPages); send fewer pages at a time.',
    );
  });
});

describe('split', () => {
  it('ranges: one part per range, zipped, each with its pages', async () => {
    const product = await engine.process([{ bytes: await makePdf('Doc', 6), path: 'file' }], {
      split: { ranges: '1-3,4-5,6' },
    });
    expect(product.kind).toBe('zip');
    if (product.kind !== 'zip') return;
    expect(product.parts).toEqual([
      { name: 'part-1.pdf', pageCount: 3 },
      { name: 'part-2.pdf', pageCount: 2 },
      { name: 'part-3.pdf', pageCount: 1 },
    ]);
    const files = unzipSync(new Uint8Array(product.bytes));
    expect(Object.keys(files)).toEqual(['part-1.pdf', 'part-2.pdf', 'part-3.pdf']);
    expect(await pageCount(files['part-2.pdf']!)).toBe(2);
    const text = await pdftotext(files['part-2.pdf']!);
    expect(text).toContain('Doc page 4');
    expect(text).toContain('Doc page 5');
    expect(text).not.toContain('Doc page 3');
  });

  it('every N pages: the last part takes the rest', async () => {
    const product = await engine.process([{ bytes: await makePdf('Doc', 5), path: 'file' }], { split: { every: 2 } });
    if (product.kind !== 'zip') throw new Error('not a zip');
    expect(product.parts.map((p) => p.pageCount)).toEqual([2, 2, 1]);
    const files = unzipSync(new Uint8Array(product.bytes));
    expect(await pdftotext(files['part-3.pdf']!)).toContain('Doc page 5');
  });

  it('a range past the last page and a malformed one: 400 naming split.ranges', async () => {
    const pdf = await makePdf('Doc', 4);
    const past = await refusal(engine.process([{ bytes: pdf, path: 'file' }], { split: { ranges: '1-2,3-5' } }));
    expect(past.code).toBe('invalid_request');
    expect(past.message).toBe('split.ranges: "3-5" goes past the last page; the PDF has 4 pages.');
    expect(past.extra.details?.[0]?.path).toBe('split.ranges');
    const at = await engine.process([{ bytes: pdf, path: 'file' }], { split: { ranges: '1-2,3-4' } });
    expect(at.kind).toBe('zip');
    const bad = await refusal(engine.process([{ bytes: pdf, path: 'file' }], { split: { ranges: '2-1' } }));
    expect(bad.code).toBe('invalid_request');
    expect(bad.extra.details?.[0]?.path).toBe('split.ranges');
  });

  it('each part encrypted when asked', async () => {
    const product = await engine.process([{ bytes: await makePdf('Doc', 2), path: 'file' }], {
      split: { every: 1 },
      encrypt: ENCRYPT,
    });
    if (product.kind !== 'zip') throw new Error('not a zip');
    for (const bytes of Object.values(unzipSync(new Uint8Array(product.bytes))))
      expect(await qpdf(bytes, ['--show-encryption', '--password=reader pass'])).toContain('AESv3');
  });
});

describe('encrypt', () => {
  it('AES-256 with the permissions asked; poppler needs the password', async () => {
    const product = await engine.process([{ bytes: await makePdf('Secret', 1), path: 'file' }], { encrypt: ENCRYPT });
    const shown = await qpdf(product.bytes, ['--show-encryption', '--password=owner pass']);
    expect(shown).toContain('R = 6');
    expect(shown).toContain('file encryption method: AESv3');
    expect(shown).toContain('print low resolution: allowed');
    expect(shown).toContain('print high resolution: not allowed');
    expect(shown).toContain('extract for any purpose: not allowed');
    expect(shown).toContain('modify annotations: allowed');
    expect(shown).toContain('modify forms: allowed');
    expect(shown).toContain('modify document assembly: not allowed');
    expect(shown).toContain('modify other: not allowed');
    const file = join(dir, 'encrypted.pdf');
    await writeFile(file, product.bytes);
    await expect(run('pdftotext', [file, '-'])).rejects.toThrow(/Incorrect password/);
    expect((await run('pdftotext', ['-upw', 'reader pass', file, '-'])).stdout).toContain('Secret page 1');
  });

  it('with pdfa: 400, PDF/A forbids encryption', async () => {
    const error = await refusal(
      engine.process([{ bytes: await makePdf('Doc', 1), path: 'file' }], { encrypt: ENCRYPT, pdfa: 'PDF/A-2b' }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.extra.details).toEqual([{ path: 'encrypt', message: 'a PDF/A file cannot be encrypted' }]);
  });

  it('a password with a line break: 400 naming it, and never repeated', async () => {
    const error = await refusal(
      engine.process([{ bytes: await makePdf('Doc', 1), path: 'file' }], {
        encrypt: { ...ENCRYPT, ownerPassword: 'two\nlines' },
      }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.extra.details).toEqual([{ path: 'encrypt.ownerPassword', message: 'contains a line break' }]);
    expect(error.message).not.toContain('two');
  });
});

describe('flatten', () => {
  it('the field values stay as page content; the form is gone', async () => {
    const form = await makeForm('Ada Lovelace');
    expect(await qpdf(form, ['--json=2', '--json-key=acroform'])).toContain('"hasacroform": true');
    const product = await engine.process([{ bytes: form, path: 'file' }], { flatten: true });
    const acroform = JSON.parse(await qpdf(product.bytes, ['--json=2', '--json-key=acroform'])) as {
      acroform: { hasacroform: boolean; fields: unknown[] };
    };
    expect(acroform.acroform).toMatchObject({ hasacroform: false, fields: [] });
    expect(await pdftotext(product.bytes)).toContain('Ada Lovelace');
  });
});

describe('finish (a render’s PDF)', () => {
  it('without options: the same bytes, no copy', async () => {
    const pdf = await makePdf('Render', 2);
    const product = await engine.finish(pdf, {});
    expect(product).toMatchObject({ kind: 'pdf', pageCount: 2 });
    expect(product.bytes).toBe(pdf);
  });

  it('with options: rewritten with a trailer /ID', async () => {
    const product = await engine.finish(await makePdf('Render', 1), { flatten: true });
    expect(await qpdf(product.bytes, ['--show-object=trailer'])).toMatch(/\/ID \[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]/);
  });
});

describe('readMetadata', () => {
  it('page count, version, Info with ISO dates, encryption, attachments', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    doc.setTitle('Quarterly report');
    doc.setAuthor('Ada');
    doc.setCreationDate(new Date('2024-01-31T12:00:00Z'));
    await doc.attach(Buffer.from('<invoice/>'), 'invoice.xml', { mimeType: 'text/xml', description: 'The invoice' });
    const plain = Buffer.from(await doc.save());
    const read = await engine.readMetadata({ bytes: plain, path: 'file' });
    expect(read).toMatchObject({
      pageCount: 1,
      pdfVersion: '1.7',
      encrypted: false,
      tagged: false,
      info: { Title: 'Quarterly report', Author: 'Ada', CreationDate: '2024-01-31T12:00:00Z' },
      attachments: [{ name: 'invoice.xml', contentType: 'text/xml', bytes: 10 }],
    });
    const encrypted = await engine.process([{ bytes: plain, path: 'file' }], { encrypt: ENCRYPT });
    const readEncrypted = await engine.readMetadata({ bytes: encrypted.bytes, path: 'file', password: 'reader pass' });
    expect(readEncrypted).toMatchObject({ encrypted: true, info: { Title: 'Quarterly report' } });
  });
});

describe('readMetadata of a tagged PDF with XMP', () => {
  it('tagged, the XMP packet, and the PDF/A and PDF/UA it claims', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const xmp =
      '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
      '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ' +
      'xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/">' +
      '<pdfaid:part>2</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance><pdfuaid:part>1</pdfuaid:part>' +
      '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
    const metadata = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(metadata));
    doc.catalog.set(PDFName.of('MarkInfo'), doc.context.obj({ Marked: true }));
    const read = await engine.readMetadata({ bytes: Buffer.from(await doc.save()), path: 'file' });
    expect(read).toMatchObject({ tagged: true, xmp, pdfa: 'PDF/A-2b', pdfua: 'PDF/UA-1' });
  });
});

describe('passwords', () => {
  it('never on a command line: qpdf gets them in a file only the service reads', async () => {
    // The bomb, encrypted without decoding it (qpdf --stream-data=preserve): the check then runs for
    // seconds with the password in use, long enough to read the running qpdf's command line.
    const plainBomb = join(projectRoot(), 'test/fixtures/pdf-hostile/bomb.pdf');
    const encryptedBomb = join(dir, 'encrypted-bomb.pdf');
    await run('qpdf', [
      '--stream-data=preserve',
      '--encrypt',
      'sesame 42',
      'owner 42',
      '256',
      '--',
      plainBomb,
      encryptedBomb,
    ]);
    const controller = new AbortController();
    const call = refusal(
      engine.process(
        [{ bytes: readFileSync(encryptedBomb), path: 'file', password: 'sesame 42' }],
        { encrypt: { ...ENCRYPT, userPassword: 'new user 42', ownerPassword: 'new owner 42' } },
        controller.signal,
      ),
    );
    // prlimit sets the limit, then becomes qpdf (the same process): read it once it is qpdf. The page count's
    // qpdf before it ends in milliseconds: one caught as it exits has an empty command line, so wait on one
    // that still has its own.
    const cmdline = await until(
      'a running qpdf with its command line',
      () => {
        const running = ourQpdf().find((p) => p.comm === 'qpdf' && p.state !== 'Z');
        if (!running) return undefined;
        try {
          const args = readFileSync(`/proc/${running.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
          return args.length ? args : undefined;
        } catch {
          return undefined; // it ended while we looked
        }
      },
      10_000,
      5,
    );
    controller.abort();
    await call;
    expect(cmdline).toEqual(['qpdf', expect.stringMatching(/^@\/.*\/args-\d+$/)]);
  });
});

describe('abort', () => {
  it('an aborted call kills its running qpdf at once and rejects', async () => {
    // The bomb keeps qpdf busy for ~20 s: long enough to be caught running.
    const bomb = readFileSync(join(projectRoot(), 'test/fixtures/pdf-hostile/bomb.pdf'));
    const controller = new AbortController();
    const started = Date.now();
    const call = engine.process([{ bytes: bomb, path: 'bomb.pdf' }], {}, controller.signal);
    const caught = refusal(call);
    // The rewrite's qpdf, not the page count's (gone in a few ms): the same process seen 200 ms apart.
    const firstSeen = new Map<number, number>();
    await until(
      'a qpdf to run for 200 ms',
      () =>
        ourQpdf().some((p) => {
          if (!firstSeen.has(p.pid)) firstSeen.set(p.pid, Date.now());
          return Date.now() - firstSeen.get(p.pid)! >= 200;
        }),
      10_000,
      10,
    );
    controller.abort();
    const error = await caught;
    expect(error.message).toBe('The PDF processing was cancelled.');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(ourQpdf()).toEqual([]);
  });
});
