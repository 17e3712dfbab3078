// The PDF options and tools end to end: the real service (real Chromium, the real PDF engine with qpdf),
// its output opened with the tools a user has (poppler, qpdf, unzip). One service, several cases each.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { pdfdetach, pdfinfo, pdftotext } from '../helpers/poppler.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/until.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { projectRoot } from '../../src/project-root.js';
import { DOCS_DIR } from '../../src/web/docs-files.js';
import { conformanceFailures } from '../helpers/pdf-conformance.js';

const run = promisify(execFile);
const THREE_PAGES =
  '<p>Page one</p><p style="break-before: page">Page two</p><p style="break-before: page">Page three</p>';
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');
const INVOICE_XML = readFileSync(join(projectRoot(), 'test/fixtures/facturx/en16931-invoice.xml'));

let svc: TestService;
let owner: IssuedKey;
let auth: Record<string, string>;
let receiver: WebhookReceiver;
let threePages: Buffer; // a plain render, the input of the tools

beforeAll(async () => {
  svc = await startTestService({ jobs: { pollIntervalMs: 100 } });
  owner = svc.createKey('pdf');
  auth = { authorization: `Bearer ${owner.key}` };
  receiver = await startWebhookReceiver();
  const res = await svc.post('/api/pdf', { html: THREE_PAGES });
  expect(res.status).toBe(200);
  threePages = await bytesOf(res);
}, 60_000);
afterAll(async () => {
  await Promise.all([svc?.close(), receiver?.close()]);
});

/** The entries of a zip as `unzip` reads them: name → bytes. */
async function unzipped(zip: Buffer): Promise<Map<string, Buffer>> {
  const dir = await mkdtemp(join(tmpdir(), 'pagewatch-zip-'));
  try {
    await writeFile(join(dir, 'in.zip'), zip);
    await run('unzip', ['-q', join(dir, 'in.zip'), '-d', join(dir, 'out')]);
    const names = readdirSync(join(dir, 'out'));
    return new Map(names.map((n) => [n, readFileSync(join(dir, 'out', n))]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const tool = (name: string, body: unknown) => svc.post(`/api/pdf/${name}`, body, auth);
const pagesOf = async (pdf: Buffer, password?: string) => Number((await pdfinfo(pdf, password)).Pages);

describe('/api/pdf with finishing options', () => {
  it("without options the render is what it was: Chromium's file, text and page count", async () => {
    const info = await pdfinfo(threePages);
    expect(info.Producer).toMatch(/Skia/);
    expect(info.Pages).toBe('3');
    expect(await pdftotext(threePages)).toMatch(/Page one[\s\S]*Page three/);
  });

  it('PDF/A-3b with metadata and an attachment: text kept, attachment extracts, metadata reads back', async () => {
    const res = await svc.post('/api/pdf', {
      html: THREE_PAGES,
      pdfa: 'PDF/A-3b',
      metadata: { title: 'Report', author: 'Ann', language: 'en-GB', custom: { Ref: 'R-7' } },
      embeds: [{ name: 'data.csv', contentType: 'text/csv', relationship: 'Data', data: b64('a,b\n1,2\n') }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-count')).toBe('3');
    const pdf = await bytesOf(res);
    expect(await pdftotext(pdf)).toMatch(/Page one[\s\S]*Page three/);
    expect(await pdfdetach(pdf)).toEqual([{ name: 'data.csv', bytes: Buffer.from('a,b\n1,2\n') }]);
    const read = await tool('metadata', { files: [{ data: b64(pdf) }] });
    expect(read.status).toBe(200);
    const meta = (await read.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      pageCount: 3,
      pdfa: 'PDF/A-3b',
      info: { Title: 'Report', Author: 'Ann', Ref: 'R-7' },
    });
  });

  it('encrypt: the file needs its password, which appears nowhere in the answer', async () => {
    // With a key: the keyed path of the route (the other cases render without one).
    const res = await svc.post(
      '/api/pdf',
      {
        html: THREE_PAGES,
        encrypt: { userPassword: 'open-sesame-1', ownerPassword: 'owner-secret-1', permissions: { copy: false } },
      },
      auth,
    );
    expect(res.status).toBe(200);
    const pdf = await bytesOf(res);
    await expect(pdfinfo(pdf)).rejects.toThrow();
    expect((await pdfinfo(pdf, 'open-sesame-1')).Encrypted).toMatch(/^yes.*AES/);
    expect(pdf.includes('open-sesame-1')).toBe(false);
  });

  it('split answers a zip of parts with their page counts', async () => {
    const res = await svc.post('/api/pdf', { html: THREE_PAGES, split: { ranges: '1-2,3' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('x-part-count')).toBe('2');
    expect(res.headers.get('content-disposition')).toContain('render.zip');
    const parts = [...(await unzipped(await bytesOf(res))).entries()].sort(([a], [b]) => a.localeCompare(b));
    expect(await Promise.all(parts.map(([, pdf]) => pagesOf(pdf)))).toEqual([2, 1]);
  });

  it('a watermark and a stamp leave the page text in place', async () => {
    const res = await svc.post('/api/pdf', {
      html: THREE_PAGES,
      watermark: { text: 'DRAFT', rotation: 0 }, // upright: pdftotext reads it as one word
      stamp: { text: 'APPROVED', position: 'top-right', pages: '1' },
    });
    expect(res.status).toBe(200);
    const text = await pdftotext(await bytesOf(res));
    expect(text).toMatch(/Page one[\s\S]*Page three/);
    // Drawn as artifacts, still text a reader finds: the watermark on each page, the stamp on page 1 only.
    const pages = text.split('\f');
    expect(pages.slice(0, 3).map((p) => [p.includes('DRAFT'), p.includes('APPROVED')])).toEqual([
      [true, true],
      [true, false],
      [true, false],
    ]);
  });

  it('refuses bad options with 400 naming them', async () => {
    const res = await svc.post('/api/pdf', { html: '<p>x</p>', pdfa: 'PDF/A-1b' });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.details![0]).toMatchObject({ path: 'pdfa' });
    expect(err.details![0]!.message).toMatch(/PDF\/A-2b, PDF\/A-3b/);
  });
});

describe('the PDF tools', () => {
  it('an async render with split: its result is the zip, named render.zip', async () => {
    const res = await svc.post('/api/pdf', { html: THREE_PAGES, split: { every: 2 }, async: true }, auth);
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    await until('the job to succeed', async () => {
      const job = (await (await svc.call('GET', `/api/jobs/${id}`, owner.key)).json()) as { status: string };
      return job.status === 'succeeded' || (job.status === 'failed' && Promise.reject(new Error('job failed')));
    });
    const result = await svc.call('GET', `/api/jobs/${id}/result`, owner.key);
    expect(result.headers.get('content-type')).toBe('application/zip');
    expect(result.headers.get('content-disposition')).toContain('render.zip');
    const parts = [...(await unzipped(await bytesOf(result))).values()];
    expect((await Promise.all(parts.map((pdf) => pagesOf(pdf)))).sort()).toEqual([1, 2]);
  });

  it('merge (JSON) joins in order; split, convert, stamp, flatten, metadata write answer what they say', async () => {
    const one = await bytesOf(await svc.post('/api/pdf', { html: '<p>Only page</p>' }));
    const merged = await tool('merge', { files: [{ data: b64(threePages) }, { data: b64(one) }] });
    expect(merged.status).toBe(200);
    expect(merged.headers.get('x-page-count')).toBe('4');
    const mergedPdf = await bytesOf(merged);
    expect(await pagesOf(mergedPdf)).toBe(4);
    expect(await pdftotext(mergedPdf)).toMatch(/Page one[\s\S]*Page three[\s\S]*Only page/);

    const split = await tool('split', { files: [{ data: b64(mergedPdf) }], split: { every: 3 } });
    expect(split.status).toBe(200);
    const parts = [...(await unzipped(await bytesOf(split))).entries()].sort(([a], [b]) => a.localeCompare(b));
    expect(await Promise.all(parts.map(([, pdf]) => pagesOf(pdf)))).toEqual([3, 1]);

    const converted = await tool('convert', { files: [{ data: b64(one) }], pdfa: 'PDF/A-2b' });
    expect(converted.status).toBe(200);
    const read = await tool('metadata', { files: [{ data: b64(await bytesOf(converted)) }] });
    expect(await read.json()).toMatchObject({ pdfa: 'PDF/A-2b' });

    const stamped = await tool('stamp', { files: [{ data: b64(one) }], stamp: { text: 'PAID' } });
    expect(stamped.status).toBe(200);
    expect(await pdftotext(await bytesOf(stamped))).toContain('Only page');

    const flat = await tool('flatten', { files: [{ data: b64(one) }] });
    expect(flat.status).toBe(200);
    expect(await pagesOf(await bytesOf(flat))).toBe(1);

    const written = await tool('metadata', { files: [{ data: b64(one) }], metadata: { title: 'Renamed' } });
    expect(written.headers.get('content-type')).toBe('application/pdf');
    expect((await pdfinfo(await bytesOf(written))).Title).toBe('Renamed');
  });

  it('multipart: the PDFs are the parts, an attachment part goes in as named', async () => {
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(threePages)]), 'a.pdf');
    form.append('files', new Blob([new Uint8Array(INVOICE_XML)]), 'factur-x.xml');
    form.append('files', new Blob([new Uint8Array(threePages)]), 'b.pdf');
    form.append('options', JSON.stringify({ facturx: { file: 'factur-x.xml', profile: 'BASIC' } }));
    const res = await fetch(`${svc.url}/api/pdf/merge`, { method: 'POST', body: form, headers: auth });
    expect(res.status, await res.clone().text()).toBe(200);
    const pdf = await bytesOf(res);
    expect(await pagesOf(pdf)).toBe(6);
    expect(await pdfdetach(pdf)).toEqual([{ name: 'factur-x.xml', bytes: INVOICE_XML }]);
  });

  it('an encrypted input opens with its password; a hostile or wrong input is 422 invalid_pdf, a non-PDF 400', async () => {
    const locked = await bytesOf(
      await svc.post('/api/pdf', {
        html: '<p>Locked</p>',
        encrypt: { userPassword: 'in-pw', ownerPassword: 'in-own' },
      }),
    );
    const opened = await tool('flatten', { files: [{ data: b64(locked), password: 'in-pw' }] });
    expect(opened.status).toBe(200);
    expect(await pdftotext(await bytesOf(opened))).toContain('Locked');
    const wrong = await tool('flatten', { files: [{ data: b64(locked), password: 'nope', name: 'locked.pdf' }] });
    expect(wrong.status, await wrong.clone().text()).toBe(422);
    expect((await errorOf(wrong)).code).toBe('invalid_pdf');
    const hostile = Buffer.from(
      '%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
    );
    const refused = await tool('flatten', { files: [{ data: b64(hostile), name: 'loop.pdf' }] });
    expect(refused.status, await refused.clone().text()).toBe(422);
    const err = await errorOf(refused);
    expect(err.code).toBe('invalid_pdf');
    const notPdf = await tool('flatten', { files: [{ data: b64('hello'), name: 'x.pdf' }] });
    // Not a PDF at all is a wrong request (400), as the engine decides; a broken PDF is 422.
    expect(notPdf.status).toBe(400);
    expect((await errorOf(notPdf)).details).toEqual([expect.objectContaining({ path: 'x.pdf' })]);
  });

  it('async: 202 job, signed webhook, the result needs the password; no password in clear in the database', async () => {
    const body = {
      files: [{ data: b64(threePages) }],
      encrypt: { userPassword: 'job-pw-7f3a9c', ownerPassword: 'job-owner-7f3a9c' },
      async: true,
      webhookUrl: receiver.url,
    };
    const once = { ...auth, 'idempotency-key': 'encrypt-once' };
    const res = await svc.post('/api/pdf/encrypt', body, once);
    expect(res.status, await res.clone().text()).toBe(202);
    const job = (await res.json()) as { id: string; kind: string };
    expect(job.kind).toBe('pdf');
    const [hit] = await receiver.waitForHits(1, 30_000);
    const event = verifyHit(owner.webhookSecret, hit!);
    expect(event).toMatchObject({ type: 'job.succeeded', data: { jobId: job.id, kind: 'pdf' } });
    // The same request under the same key is the same job, though its sealed passwords differ each time.
    const again = await svc.post('/api/pdf/encrypt', body, once);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(job.id);
    const other = { ...body, encrypt: { ...body.encrypt, userPassword: 'another-7f3a9c' } };
    expect((await svc.post('/api/pdf/encrypt', other, once)).status).toBe(409);
    const view: unknown = await (await svc.call('GET', `/api/jobs/${job.id}`, owner.key)).json();
    expect(JSON.stringify(view)).not.toContain('7f3a9c');
    const result = await svc.call('GET', `/api/jobs/${job.id}/result`, owner.key);
    expect(result.headers.get('content-disposition')).toContain('encrypt.pdf');
    const pdf = await bytesOf(result);
    await expect(pdfinfo(pdf)).rejects.toThrow();
    expect(await pagesOf(pdf, 'job-pw-7f3a9c')).toBe(3);
    // Every byte the database ever wrote (the file and its WAL, free pages included).
    await until('the job row written', async () => (await svc.call('GET', `/api/jobs/${job.id}`, owner.key)).ok);
    for (const name of readdirSync(svc.dataDir)) {
      const path = join(svc.dataDir, name);
      if (statSync(path).isFile()) expect(readFileSync(path).includes('7f3a9c'), name).toBe(false);
    }
  });
});

describe('the e-invoice example of docs/pdf.md', () => {
  it('runs as written with curl and gives a PDF/A-3b Factur-X file', async () => {
    const doc = readFileSync(join(DOCS_DIR, 'pdf.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Example: an e-invoice'));
    const command = /```sh\n([\s\S]*?)\n```/.exec(section)![1]!.replace('http://localhost:3000', svc.url);
    const dir = await mkdtemp(join(tmpdir(), 'pagewatch-einvoice-'));
    try {
      const fixtures = join(projectRoot(), 'test/fixtures/facturx');
      await writeFile(join(dir, 'index.html'), readFileSync(join(fixtures, 'invoice-page.html')));
      await writeFile(join(dir, 'factur-x.xml'), INVOICE_XML);
      const { stdout } = await run('bash', ['-c', command], { cwd: dir, env: { ...process.env, KEY: owner.key } });
      expect(stdout).toMatch(/^HTTP\/1\.1 200/);
      expect(stdout).toMatch(/content-type: application\/pdf/i);
      const pdf = readFileSync(join(dir, 'invoice.pdf'));
      expect(
        await conformanceFailures(pdf, {
          pdfa: 'PDF/A-3b',
          info: { title: 'Invoice 2026-042', author: 'Example GmbH' },
          facturx: { xml: INVOICE_XML, fileName: 'factur-x.xml', relationship: 'Alternative', level: 'EN 16931' },
        }),
      ).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
