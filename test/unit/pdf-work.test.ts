// An async PDF job's work at rest: no password in clear, no bytes in the row, and back again unchanged.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isPdfWorkFile, packPdfWork, pdfWorkFormat, unpackPdfWork, type PdfWork } from '../../src/jobs/pdf-work.js';
import { SecretBox } from '../../src/secrets/secret-box.js';

const box = new SecretBox(randomBytes(32));
const work: PdfWork = {
  tool: 'merge',
  inputs: [
    { bytes: Buffer.from('%PDF-a'), path: 'a.pdf', password: 'in-secret' },
    { bytes: Buffer.from('%PDF-b'), path: 'b.pdf' },
  ],
  finishing: {
    encrypt: {
      userPassword: 'user-secret',
      ownerPassword: 'owner-secret',
      permissions: { print: 'full', copy: true, modify: true, annotate: true, fillForms: true, assemble: true },
    },
    embeds: [{ name: 'x.csv', contentType: 'text/csv', relationship: 'Data', bytes: Buffer.from('1,2') }],
  },
};

describe('PDF work at rest', () => {
  it('keeps no password in clear and no bytes in the row; the files go to the bundle', () => {
    const { stored, files } = packPdfWork(work, box, 'job_1');
    const text = JSON.stringify(stored);
    for (const secret of ['in-secret', 'user-secret', 'owner-secret', '%PDF-a', '1,2'])
      expect(text).not.toContain(secret);
    expect(text).toContain('enc:v1:');
    expect(files.map((f) => f.bytes.toString())).toEqual(['%PDF-a', '%PDF-b', '1,2']);
    expect(files.every((f) => isPdfWorkFile(f.path))).toBe(true);
  });

  it('comes back unchanged, and only under its own job id', () => {
    const { stored, files } = packPdfWork(work, box, 'job_1');
    const roundTrip = JSON.parse(JSON.stringify(stored)) as Record<string, unknown>;
    expect(unpackPdfWork(roundTrip, files, box, 'job_1')).toEqual(work);
    expect(() => unpackPdfWork(roundTrip, files, box, 'job_2')).toThrow(/authentication failed/);
  });

  it('fingerprints equal work equally (sealed values differ every time), and other passwords otherwise', () => {
    const a = packPdfWork(work, box, 'job_1');
    const b = packPdfWork(work, box, 'job_2');
    expect(a.stored).not.toEqual(b.stored);
    expect(a.fingerprint).toEqual(b.fingerprint);
    expect(JSON.stringify(a.fingerprint)).not.toContain('user-secret');
    const other = {
      ...work,
      finishing: { ...work.finishing, encrypt: { ...work.finishing.encrypt!, userPassword: 'x' } },
    };
    expect(packPdfWork(other, box, 'job_1').fingerprint).not.toEqual(a.fingerprint);
  });

  it('names its answer before it runs', () => {
    expect(pdfWorkFormat({ tool: 'metadata', finishing: {} })).toBe('json');
    expect(pdfWorkFormat({ tool: 'metadata', finishing: { metadata: { title: 't' } } })).toBe('pdf');
    expect(pdfWorkFormat({ finishing: { split: { every: 1 } } })).toBe('zip');
  });
});
