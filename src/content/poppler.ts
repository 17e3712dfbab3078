// poppler's command-line tools (Debian's poppler-utils: pdfinfo, pdftotext, pdftoppm) as the PDF reader of
// monitors runs them: each a bounded subprocess (src/pdf/bounded-process.ts) whose every failure ends in a
// `render_failed` saying why in words, as a capture's error shows it.
import { spawnSync } from 'node:child_process';
import { humanBytes, humanMs } from '../domain/units.js';
import { renderFailed, type AppError } from '../errors.js';
import { runBounded, type Bounds, type BoundedExit } from '../pdf/bounded-process.js';

export type PopplerTool = 'pdfinfo' | 'pdftotext' | 'pdftoppm';

/** poppler's complaints about one bad byte each can run to megabytes; the first 64 KiB say why. */
const KEPT_STDERR_BYTES = 64 * 1024;

let popplerVersion: string | undefined | null = null;
/** poppler's version when pdfinfo, pdftotext and pdftoppm all run, else undefined (checked once). */
export function installedPoppler(): string | undefined {
  if (popplerVersion === null) {
    let version: string | undefined;
    for (const tool of ['pdfinfo', 'pdftotext', 'pdftoppm'] satisfies PopplerTool[]) {
      const probe = spawnSync(tool, ['-v'], { encoding: 'utf8', timeout: 5000 });
      version = probe.status === 0 ? /version (\S+)/.exec(`${probe.stdout}${probe.stderr}`)?.[1] : undefined;
      if (!version) break;
    }
    popplerVersion = version;
  }
  return popplerVersion ?? undefined;
}

/** For /ready: whether watched PDFs can be read, and if not what to install. */
export function pdfReaderAvailability(): { usable: true; poppler: string } | { usable: false; reason: string } {
  const version = installedPoppler();
  return version
    ? { usable: true, poppler: version }
    : {
        usable: false,
        reason:
          'poppler-utils (pdfinfo, pdftotext, pdftoppm) is not installed, so captures of monitors that watch a PDF fail; install it (Debian: apt-get install poppler-utils)',
      };
}

export const popplerMissing = () =>
  renderFailed(
    'The PDF could not be read: poppler-utils (pdftotext, pdftoppm) is not installed on the server; its operator installs it (Debian: apt-get install poppler-utils).',
  );
export const readTimeout = (timeoutMs: number) =>
  renderFailed(
    `Reading the PDF took longer than ${humanMs(timeoutMs)}: it is too large or built to be expensive to read.`,
  );
export const readOutOfMemory = (memoryMb: number) =>
  renderFailed(
    `Reading the PDF needed more than the memory limit of ${memoryMb} MiB: it is too large or built to be expensive to read.`,
  );
export const readAborted = () => renderFailed('Reading the PDF was cancelled.');
export const textTooLong = (maxBytes: number, pages: number) =>
  renderFailed(
    `The PDF could not be read: the text of its first ${pages === 1 ? 'page' : `${pages} pages`} is longer than ${humanBytes(maxBytes)} as poppler lays it out.`,
  );
export const unreadable = (reason: string) => renderFailed(`The PDF could not be read: ${reason}.`);
export const encrypted = () =>
  renderFailed('The PDF could not be read: it is encrypted with a password, and a watched PDF must open without one.');

/** A poppler exit that is the address-space limit biting: a failed allocation, or the loader unable to map a library. */
const outOfMemory = (exit: BoundedExit) =>
  exit.code === null || /bad_alloc|out of memory|cannot allocate|failed to map segment/i.test(exit.stderr);

/**
 * Why poppler could not read the file, in words: its last error (the one it gave up on) without its
 * "Syntax Error (offset):" prefix, or a plainer sentence for the cases people meet.
 */
export function popplerReason(stderr: string): string {
  if (/May not be a PDF file/.test(stderr)) return 'it is not a PDF (it does not start with %PDF-)';
  const errors = stderr
    .split('\n')
    .map((line) => /^(?:Syntax |Internal |I\/O |Command Line )?Error(?: \(\d+\))?: (.*)$/.exec(line.trim())?.[1])
    .filter((line): line is string => Boolean(line));
  const claimed = errors.find((e) => /^Page count \(\d+\) larger than number of objects/.test(e));
  if (claimed || errors.some((e) => /^Wrong page range given/.test(e)))
    return `poppler finds no page in it${claimed ? ` (${claimed})` : ''}`;
  const last = errors.filter((e) => !/^Wrong page range given/.test(e)).at(-1);
  return last ? `poppler says "${last.replace(/\.$/, '')}"` : 'poppler gives no reason';
}

/**
 * Runs one poppler tool in `dir` under `bounds`; resolves with its stdout when it exits 0. `maxStdoutBytes`
 * bounds what it prints (the text of pdftotext): past it, `onTooLong` is the error.
 */
export async function runPoppler(
  tool: PopplerTool,
  args: string[],
  dir: string,
  bounds: Bounds,
  maxStdoutBytes: number,
  onTooLong: () => AppError = () => readOutOfMemory(bounds.memoryMb),
): Promise<Buffer> {
  if (!installedPoppler()) throw popplerMissing();
  const exit = await runBounded({
    command: tool,
    args,
    cwd: dir,
    bounds,
    maxOutputBytes: maxStdoutBytes + KEPT_STDERR_BYTES,
    maxStdoutBytes,
    keptStderrBytes: KEPT_STDERR_BYTES,
    stops: { timeout: () => readTimeout(bounds.timeoutMs), outputTooLarge: onTooLong, aborted: readAborted },
  });
  if (outOfMemory(exit)) throw readOutOfMemory(bounds.memoryMb);
  if (exit.code === 0) return exit.stdout;
  // poppler's exit 1 covers "cannot open"; a user password it was not given is said on stderr.
  if (/Incorrect password/.test(exit.stderr)) throw encrypted();
  throw unreadable(popplerReason(exit.stderr));
}
