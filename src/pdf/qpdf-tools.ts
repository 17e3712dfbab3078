// The qpdf side of the tools: join inputs, the final rewrite (a trailer /ID, a clean xref, encryption) and
// the parts of a split. qpdf rather than pdf-lib for these: it copies pages with everything they use,
// keeps the catalog of the primary file, writes AES-256 (pdf-lib cannot encrypt), and runs in a bounded
// child process.
import { join } from 'node:path';
import type { PdfEncryption } from '../domain/pdf-spec.js';
import { invalidPdf } from '../errors.js';
import { checkPasswordText } from './inputs.js';
import type { PageRange } from './page-ranges.js';
import { qpdfMessages, runQpdf, type Bounds } from './qpdf.js';

const failed = (what: string) => (stderr: string) => {
  const reason = qpdfMessages(stderr).at(-1) ?? 'qpdf failed';
  return invalidPdf(`${what} failed: ${reason}.`);
};

const yn = (on: boolean) => (on ? 'y' : 'n');

/** qpdf's --encrypt arguments for AES-256 with `encryption`'s passwords and permissions. */
export function encryptArgs(encryption: PdfEncryption): string[] {
  checkPasswordText(encryption.ownerPassword, 'encrypt.ownerPassword');
  checkPasswordText(encryption.userPassword ?? '', 'encrypt.userPassword');
  const p = encryption.permissions;
  return [
    '--encrypt',
    encryption.userPassword ?? '',
    encryption.ownerPassword,
    '256',
    `--print=${p.print}`,
    `--extract=${yn(p.copy)}`,
    `--modify-other=${yn(p.modify)}`,
    `--annotate=${yn(p.annotate)}`,
    `--form=${yn(p.fillForms)}`,
    `--assemble=${yn(p.assemble)}`,
    '--',
  ];
}

/** Joins checked files in order into `out`: pages, their resources, annotations and form fields. */
export async function mergeFiles(dir: string, files: string[], bounds: Bounds): Promise<string> {
  const out = join(dir, 'merged.pdf');
  await runQpdf(dir, ['--empty', '--pages', ...files, '--', out], bounds, failed('Joining the PDFs'));
  return out;
}

/** Rewrites `file` (a trailer /ID, a fresh xref), encrypted when asked, optionally only `range`'s pages. */
export async function rewrite(
  dir: string,
  file: string,
  out: string,
  bounds: Bounds,
  options: { encrypt?: PdfEncryption; range?: PageRange } = {},
): Promise<void> {
  const args = [
    ...(options.encrypt ? encryptArgs(options.encrypt) : []),
    file,
    ...(options.range ? ['--pages', '.', `${options.range.from}-${options.range.to}`, '--'] : []),
    out,
  ];
  await runQpdf(dir, args, bounds, failed(options.range ? 'Splitting the PDF' : 'Writing the PDF'));
}
