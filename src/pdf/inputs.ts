// An uploaded PDF checked before any work is spent on it, and rewritten into the form the other steps
// expect. In order, each cheap before the next: the header (in process: 400 if it is not a PDF at all);
// the page count the page tree claims (qpdf --show-npages reads /Count without walking the tree: a
// "million pages" file is refused before it costs anything); then one qpdf rewrite that decrypts, walks the
// whole page tree (a loop is an error), repairs what qpdf can (a broken xref: accepted, with warnings) and
// decodes and re-encodes every Flate stream (a decompression bomb runs into the time or memory bound in
// qpdf's process, never in ours), writing no object streams so pdf-lib later only parses.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidPdf, invalidRequest, type AppError } from '../errors.js';
import type { PdfInput } from './engine.js';
import { qpdfMessages, runQpdf, type Bounds } from './qpdf.js';

/** How far into the file `%PDF-` may start (as readers allow: some files have junk before it). */
export const HEADER_WINDOW = 1024;

export interface CheckedInput {
  /** The rewritten file, decrypted, inside the call's work directory. */
  file: string;
  pageCount: number;
  /** What qpdf repaired on the way (empty for a sound file). */
  warnings: string[];
  /** The file as uploaded, and the arguments that open it (its password file). */
  source: string;
  passwordArgs: string[];
}

/** A password as qpdf gets it: one line of a 0600 file, so a line break cannot be part of one. */
export function checkPasswordText(password: string, path: string): void {
  if (/[\r\n]/.test(password))
    throw invalidRequest(`${path} must not contain a line break.`, [{ path, message: 'contains a line break' }]);
}

export async function checkInput(
  dir: string,
  input: PdfInput,
  index: number,
  bounds: Bounds,
  maxPages: number,
): Promise<CheckedInput> {
  if (!input.bytes.subarray(0, HEADER_WINDOW).includes('%PDF-'))
    throw invalidRequest(`${input.path} is not a PDF: a PDF starts with "%PDF-".`, [
      { path: input.path, message: 'not a PDF (no %PDF- header)' },
    ]);
  const source = join(dir, `in-${index}.pdf`);
  await writeFile(source, input.bytes);
  const passwordArgs: string[] = [];
  if (input.password !== undefined) {
    checkPasswordText(input.password, 'password');
    const passwordFile = join(dir, `in-${index}.pw`);
    await writeFile(passwordFile, input.password, { mode: 0o600 });
    passwordArgs.push(`--password-file=${passwordFile}`);
  }
  const unreadable = (stderr: string): AppError => {
    if (/invalid password/.test(stderr))
      return input.password === undefined
        ? invalidPdf(`${input.path} is encrypted: give its password.`, [
            { path: 'password', message: 'the PDF is encrypted; its user or owner password is needed' },
          ])
        : invalidPdf(`The password given for ${input.path} is not its password.`, [
            { path: 'password', message: 'not the PDF’s user or owner password' },
          ]);
    const reason = qpdfMessages(stderr).at(-1) ?? 'qpdf could not read it';
    return invalidPdf(`${input.path} cannot be read as a PDF: ${reason}.`, [{ path: input.path, message: reason }]);
  };

  const claimed = await runQpdf(dir, [...passwordArgs, '--show-npages', source], bounds, unreadable);
  const claimedPages = Number(claimed.stdout.toString().trim());
  checkPageCount(claimedPages, maxPages, input.path);

  const file = join(dir, `checked-${index}.pdf`);
  const rewrite = await runQpdf(
    dir,
    [...passwordArgs, '--decrypt', '--object-streams=disable', source, '--pages', '.', '1-z', '--', file],
    bounds,
    unreadable,
  );
  const counted = await runQpdf(dir, ['--show-npages', file], bounds, unreadable);
  const pageCount = Number(counted.stdout.toString().trim());
  checkPageCount(pageCount, maxPages, input.path);
  if (pageCount < 1)
    throw invalidPdf(`${input.path} has no pages.`, [{ path: input.path, message: 'the PDF has no pages' }]);
  return { file, pageCount, warnings: rewrite.warnings, source, passwordArgs };
}

/** Refuses more than `maxPages` pages, saying the count and the limit. */
export function checkPageCount(pageCount: number, maxPages: number, path: string): void {
  if (!Number.isSafeInteger(pageCount) || pageCount > maxPages)
    throw invalidPdf(
      `${path} has ${pageCount.toLocaleString('en')} pages, more than the limit of ${maxPages.toLocaleString('en')} (pdf.maxPages); send fewer pages at a time.`,
      [{ path, message: `${pageCount} pages; the limit is ${maxPages}` }],
    );
}
