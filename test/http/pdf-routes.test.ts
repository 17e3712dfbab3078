// The PDF options and tools over the real HTTP stack with a fake renderer and a FAKE PdfEngine (it records
// what it is asked and answers fixed bytes): that the wire options reach the engine as the domain's
// PdfFinishing, that a request without them never calls it, and every refusal. The real engine's work is
// checked end to end in test/integration/pdf-api.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PdfFinishing } from '../../src/domain/pdf-spec.js';
import type { PdfEngine, PdfInput } from '../../src/pdf/engine.js';
import { FAKE_PDF, startFakeApp, type FakeApp } from '../helpers/fake-app.js';
import { expectError } from '../helpers/http-contract.js';
import { MAX_PDF_PASSWORD_CHARS } from '../../src/http/schemas/string-caps.js';
import { MAX_EMBEDS } from '../../src/http/schemas/pdf-finishing.js';

interface Call {
  method: 'finish' | 'process' | 'readMetadata';
  finishing?: PdfFinishing;
  inputs?: PdfInput[];
}
const calls: Call[] = [];
const FINISHED = Buffer.from('%PDF-1.7\n% finished\n%%EOF\n');
const fakeEngine: PdfEngine = {
  finish: (_pdf, finishing) => {
    calls.push({ method: 'finish', finishing });
    return Promise.resolve(
      finishing.split
        ? {
            kind: 'zip',
            bytes: Buffer.from('PK fake'),
            parts: [
              { name: 'part-1.pdf', pageCount: 2 },
              { name: 'part-2.pdf', pageCount: 1 },
            ],
          }
        : { kind: 'pdf', bytes: FINISHED, pageCount: 7 },
    );
  },
  process: (inputs, finishing) => {
    calls.push({ method: 'process', inputs, finishing });
    return Promise.resolve({ kind: 'pdf', bytes: FINISHED, pageCount: inputs.length * 3 });
  },
  readMetadata: (input) => {
    calls.push({ method: 'readMetadata', inputs: [input] });
    return Promise.resolve({
      pageCount: 3,
      pdfVersion: '1.7',
      encrypted: false,
      tagged: true,
      info: { Title: 'T' },
      attachments: [],
    });
  },
};

let app: FakeApp;
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');
let auth: Record<string, string>;

beforeAll(async () => {
  app = await startFakeApp({}, { pdfEngine: fakeEngine });
  auth = { authorization: `Bearer ${app.key}` };
});
afterAll(() => app?.close());

const last = () => calls[calls.length - 1]!;

describe('/api/pdf with finishing options (fake engine)', () => {
  it('a render without finishing options never calls the engine, and its metadata stays with the renderer', async () => {
    const before = calls.length;
    const res = await app.post('/api/pdf', { html: '<p>x</p>', metadata: { title: 'T' } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(FAKE_PDF);
    expect(calls.length).toBe(before);
    const req = app.renders[app.renders.length - 1]!.req as unknown as Record<string, unknown>;
    expect(req.metadata).toEqual({ title: 'T' });
  });

  it('options reach the engine as PdfFinishing; the renderer sees none of them; X-Page-Count is the finished one', async () => {
    const res = await app.post('/api/pdf', {
      html: '<p>x</p>',
      pdfua: true,
      metadata: { title: 'T', language: 'de-DE', custom: { Invoice: '42' } },
      embeds: [{ name: 'a.csv', contentType: 'text/csv', data: b64('a,b') }],
      watermark: { text: 'DRAFT' },
      encrypt: { ownerPassword: 'owner-secret' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-count')).toBe('7');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(FINISHED);
    const { finishing } = last();
    expect(finishing!.embeds![0]).toMatchObject({
      name: 'a.csv',
      relationship: 'Unspecified',
      bytes: Buffer.from('a,b'),
    });
    expect(finishing!.watermark).toMatchObject({ text: 'DRAFT', opacity: 0.3, rotation: 45, position: 'center' });
    expect(finishing!.encrypt!.permissions).toEqual({
      print: 'full',
      copy: true,
      modify: true,
      annotate: true,
      fillForms: true,
      assemble: true,
    });
    expect(finishing!.metadata).toMatchObject({ title: 'T', language: 'de-DE' });
    const req = app.renders[app.renders.length - 1]!.req as unknown as Record<string, unknown>;
    expect(req).toMatchObject({ tagged: true, outline: true, metadata: { title: 'T' } });
    for (const k of ['pdfua', 'embeds', 'watermark', 'encrypt', 'split']) expect(req[k]).toBeUndefined();
  });

  it('facturx implies PDF/A-3b; split answers a zip with X-Part-Count', async () => {
    await app.post('/api/pdf', { html: '<p>x</p>', facturx: { xml: '<x/>' } });
    expect(last().finishing).toMatchObject({
      pdfa: 'PDF/A-3b',
      facturx: { profile: 'EN 16931', xml: Buffer.from('<x/>') },
    });
    const res = await app.post('/api/pdf', { html: '<p>x</p>', split: { every: 2 } });
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('x-part-count')).toBe('2');
    expect(res.headers.get('content-disposition')).toContain('render.zip');
  });

  it('an upload: an embed may name one of its files', async () => {
    const form = new FormData();
    form.append('files', new Blob(['<p>x</p>']), 'index.html');
    form.append('files', new Blob(['1,2']), 'data.csv');
    form.append('embeds', JSON.stringify([{ name: 'data.csv', contentType: 'text/csv', file: 'data.csv' }]));
    const res = await fetch(`${app.url}/api/pdf`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(last().finishing!.embeds![0]!.bytes.toString()).toBe('1,2');
    form.set('embeds', JSON.stringify([{ name: 'x', contentType: 'text/csv', file: 'missing.csv' }]));
    const missing = await expectError(
      await fetch(`${app.url}/api/pdf`, { method: 'POST', body: form }),
      400,
      'invalid_request',
    );
    expect(missing.details).toEqual([{ path: 'embeds.0.file', message: 'no uploaded part is named "missing.csv"' }]);
  });

  it('refuses bad options with 400 naming the option', async () => {
    const bad = async (body: Record<string, unknown>, path: string, text?: RegExp) => {
      const err = await expectError(await app.post('/api/pdf', { html: '<p>x</p>', ...body }), 400, 'invalid_request');
      const detail = err.details!.find((d) => d.path === path);
      expect(detail, JSON.stringify(err.details)).toBeDefined();
      if (text) expect(detail!.message).toMatch(text);
    };
    await bad({ pdfa: 'PDF/A-1b' }, 'pdfa', /PDF\/A-2b, PDF\/A-3b/);
    await bad({ pdfa: 'PDF/A-2b', encrypt: { ownerPassword: 'x' } }, 'encrypt');
    await bad({ pdfa: 'PDF/A-2b', facturx: { xml: '<x/>' } }, 'facturx');
    await bad({ split: { every: 2, ranges: '1-2' } }, 'split.ranges');
    await bad({ watermark: { text: 'a', image: { data: b64('x'), contentType: 'image/png' } } }, 'watermark.text');
    await bad({ embeds: [{ name: 'a', contentType: 't/x', data: 'not base64!' }] }, 'embeds.0.data');
    await bad({ embeds: [{ name: 'a', contentType: 't/x', file: 'a.csv' }] }, 'embeds.0.file', /multipart/);
    await bad({ pdfua: true, tagged: false }, 'tagged');
    await bad({ encrypt: { ownerPassword: '' } }, 'encrypt.ownerPassword');
  });

  it('limits at and just over their edge: passwords, embeds', async () => {
    const pw = (n: number) => app.post('/api/pdf', { html: '<p>x</p>', encrypt: { ownerPassword: 'p'.repeat(n) } });
    expect((await pw(MAX_PDF_PASSWORD_CHARS)).status).toBe(200);
    const over = await expectError(await pw(MAX_PDF_PASSWORD_CHARS + 1), 400, 'invalid_request');
    expect(over.details![0]!.path).toBe('encrypt.ownerPassword');
    expect(JSON.stringify(over)).not.toContain('p'.repeat(MAX_PDF_PASSWORD_CHARS)); // the value is not echoed
    const embeds = (n: number) =>
      app.post('/api/pdf', {
        html: '<p>x</p>',
        embeds: Array.from({ length: n }, (_, i) => ({ name: `f${i}`, contentType: 'text/plain', data: b64('x') })),
      });
    expect((await embeds(MAX_EMBEDS)).status).toBe(200);
    expect((await expectError(await embeds(MAX_EMBEDS + 1), 400, 'invalid_request')).details![0]!.path).toBe('embeds');
  });
});

describe('the PDF tools (fake engine)', () => {
  it('merge takes up to pdf.maxFiles PDFs: at the limit, and one over', async () => {
    const small = await startFakeApp({ pdf: { maxFiles: 3 } }, { pdfEngine: fakeEngine });
    try {
      const files = (n: number) => ({ files: Array.from({ length: n }, () => ({ data: b64('%PDF-x') })) });
      const send = (n: number) => small.post('/api/pdf/merge', files(n), { authorization: `Bearer ${small.key}` });
      expect((await send(3)).status).toBe(200);
      const over = await expectError(await send(4), 400, 'invalid_request');
      expect(over.details![0]!.path).toBe('files');
    } finally {
      await small.close();
    }
  });

  it('need an API key', async () => {
    await expectError(await app.post('/api/pdf/merge', { files: [] }), 401, 'unauthorized');
  });

  it('merge takes the files in order, with their passwords, and finishing options', async () => {
    const res = await app.post(
      '/api/pdf/merge',
      {
        files: [
          { data: b64('%PDF-a'), name: 'a.pdf' },
          { data: b64('%PDF-b'), password: 'open-b' },
        ],
        metadata: { title: 'Both' },
        pdfa: 'PDF/A-2b',
      },
      auth,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-count')).toBe('6');
    expect(res.headers.get('content-disposition')).toContain('merge.pdf');
    const call = last();
    expect(call.method).toBe('process');
    expect(call.inputs!.map((i) => [i.path, i.bytes.toString(), i.password])).toEqual([
      ['a.pdf', '%PDF-a', undefined],
      ['files.1', '%PDF-b', 'open-b'],
    ]);
    expect(call.finishing).toEqual({ metadata: { title: 'Both' }, pdfa: 'PDF/A-2b' });
  });

  it('multipart: PDFs are the parts the options do not name, in order; passwords by part name', async () => {
    const form = new FormData();
    form.append(
      'options',
      JSON.stringify({
        passwords: { 'b.pdf': 'pw' },
        embeds: [{ name: 'x.csv', contentType: 'text/csv', file: 'x.csv' }],
      }),
    );
    form.append('files', new Blob(['%PDF-a']), 'a.pdf');
    form.append('files', new Blob(['1,2']), 'x.csv');
    form.append('files', new Blob(['%PDF-b']), 'b.pdf');
    const res = await fetch(`${app.url}/api/pdf/merge`, { method: 'POST', body: form, headers: auth });
    expect(res.status).toBe(200);
    const call = last();
    expect(call.inputs!.map((i) => [i.path, i.password])).toEqual([
      ['a.pdf', undefined],
      ['b.pdf', 'pw'],
    ]);
    expect(call.finishing!.embeds![0]!.bytes.toString()).toBe('1,2');
  });

  it('metadata reads JSON without options; flatten sets flatten; each tool checks its file count and needs', async () => {
    const one = { files: [{ data: b64('%PDF-x') }] };
    const read = await app.post('/api/pdf/metadata', one, auth);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ pageCount: 3, info: { Title: 'T' } });
    expect(last().method).toBe('readMetadata');
    await app.post('/api/pdf/flatten', one, auth);
    expect(last().finishing).toEqual({ flatten: true });
    const refused = async (tool: string, body: unknown, path: string) => {
      const err = await expectError(await app.post(`/api/pdf/${tool}`, body, auth), 400, 'invalid_request');
      expect(err.details!.map((d) => d.path)).toContain(path);
    };
    await refused('merge', one, 'files');
    await refused('encrypt', one, 'encrypt');
    await refused('stamp', one, 'watermark');
    await refused('convert', { ...one, pdfa: 'PDF/A-1b' }, 'pdfa');
    await refused('split', { files: [...one.files, ...one.files], split: { every: 1 } }, 'files');
    await refused('flatten', { ...one, encrypt: { ownerPassword: 'x' } }, 'encrypt');
  });
});
