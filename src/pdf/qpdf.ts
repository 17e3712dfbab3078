// qpdf in a child process, under the engine's bounds (bounded-process.ts: a deadline, an address-space
// limit, capped output), so a hostile file ends in a clear error instead of a hang or an exhausted
// machine. Every argument goes through an argument file (`qpdf @file`, mode 0600, in a per-call directory
// that is always removed): passwords never reach a command line, which other users could read in
// /proc/<pid>/cmdline.
import { spawnSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, invalidPdf, unavailable } from '../errors.js';
import { humanMs } from '../domain/units.js';
import { runBounded, type Bounds } from './bounded-process.js';

export { withWorkDir, type Bounds } from './bounded-process.js';

export interface QpdfResult {
  stdout: Buffer;
  /** qpdf exited 3: it finished, and repaired or skipped something (said on stderr). */
  warnings: string[];
}

let qpdfVersion: string | undefined | null = null;
/** qpdf's version, or undefined when it is not installed (checked once). */
export function installedQpdf(): string | undefined {
  if (qpdfVersion === null) {
    const probe = spawnSync('qpdf', ['--version'], { encoding: 'utf8', timeout: 5000 });
    qpdfVersion = probe.status === 0 ? /qpdf version (\S+)/.exec(probe.stdout)?.[1] : undefined;
  }
  return qpdfVersion ?? undefined;
}

export const qpdfMissing = () =>
  unavailable(
    'The PDF tools are unavailable: qpdf is not installed on the server; its operator installs it (Debian: apt-get install qpdf).',
  );

/** The error for a PDF tool step that ran out of its time. */
export const pdfTimeout = (timeoutMs: number) =>
  invalidPdf(
    `Processing the PDF did not finish within the limit of ${humanMs(timeoutMs)} (pdf.timeoutMs); the file is too large or built to be expensive: send a smaller or simpler PDF.`,
  );

/** The error for a PDF tool step that needed more memory than it may have. */
export const pdfOutOfMemory = (memoryMb: number) =>
  invalidPdf(
    `Processing the PDF needed more than the memory limit of ${memoryMb} MiB (pdf.memoryMb); the file is too large or built to be expensive (e.g. streams that inflate to gigabytes): send a smaller or simpler PDF.`,
  );

export const aborted = () => new AppError('invalid_request', 'The PDF processing was cancelled.');

/**
 * Runs qpdf with `args` (file paths inside `dir`). Exit 0 and 3 (warnings) resolve; exit 2 rejects with
 * `onError(stderr)` (the caller knows which input it was); a deadline, an abort or the memory limit
 * reject with their own errors.
 */
export async function runQpdf(
  dir: string,
  args: string[],
  bounds: Bounds,
  onError: (stderr: string) => AppError,
): Promise<QpdfResult> {
  if (!installedQpdf()) throw qpdfMissing();
  if (bounds.signal?.aborted) throw aborted();
  const remaining = bounds.deadline - Date.now();
  if (remaining <= 0) throw pdfTimeout(bounds.timeoutMs);
  // One argument a line; a line break inside an argument (a password) is refused before this is reached.
  const argFile = join(dir, `args-${process.hrtime.bigint()}`);
  await writeFile(argFile, args.join('\n') + '\n', { mode: 0o600 });
  try {
    const { code, stdout, stderr } = await runBounded({
      command: 'qpdf',
      args: [`@${argFile}`],
      cwd: dir,
      bounds,
      // What qpdf prints is held in this process: a stream it inflates to stdout (an uploaded PDF's XMP
      // packet, read for the metadata) could be gigabytes, so its output has the same bound as its memory.
      maxOutputBytes: bounds.memoryMb * 1024 * 1024,
      stops: {
        timeout: () => pdfTimeout(bounds.timeoutMs),
        outputTooLarge: () => pdfOutOfMemory(bounds.memoryMb),
        aborted,
      },
    });
    if (/bad_alloc|out of memory|cannot allocate/i.test(stderr) || code === null) throw pdfOutOfMemory(bounds.memoryMb);
    if (code === 0 || code === 3) return { stdout, warnings: code === 3 ? qpdfMessages(stderr) : [] };
    throw onError(stderr);
  } finally {
    await rm(argFile, { force: true });
  }
}

/** qpdf's stderr as sentences, without its prefixes and the file paths (which are ours, not the caller's). */
export function qpdfMessages(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) =>
      line
        .replace(/^WARNING:\s*/, '')
        .replace(/^qpdf:\s*/, '')
        .replace(/^\S+\.pdf(?=[:\s])\s*/, '')
        .replace(/^:\s*/, '')
        .trim(),
    )
    .filter((line) => line && !/^operation succeeded/.test(line));
}
