// qpdf in a child process, under the engine's bounds: a deadline (the process group is killed when it
// passes or the caller aborts) and an address-space limit (prlimit --as), so a hostile file ends in a
// clear error instead of a hang or an exhausted machine. Every argument goes through an argument file
// (`qpdf @file`, mode 0600, in a per-call directory that is always removed): passwords never reach a
// command line, which other users could read in /proc/<pid>/cmdline.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, invalidPdf, unavailable } from '../errors.js';
import { humanMs } from '../domain/units.js';

/** The limits one engine call runs under: an absolute deadline (shared by all its steps) and memory per process. */
export interface Bounds {
  deadline: number;
  timeoutMs: number;
  memoryMb: number;
  signal?: AbortSignal;
}

export interface QpdfResult {
  stdout: Buffer;
  /** qpdf exited 3: it finished, and repaired or skipped something (said on stderr). */
  warnings: string[];
}

/** A directory of its own for one engine call's files, removed afterwards whatever happens. */
export async function withWorkDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pagewatch-pdf-'));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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
    const child = spawn('prlimit', [`--as=${bounds.memoryMb * 1024 * 1024}`, '--', 'qpdf', `@${argFile}`], {
      cwd: dir,
      detached: true, // its own process group, killed whole
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let stopped: AppError | undefined;
    const kill = (why: AppError) => {
      stopped ??= why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    // What qpdf prints is held in this process: a stream it inflates to stdout (an uploaded PDF's XMP
    // packet, read for the metadata) could be gigabytes, so its output has the same bound as its memory.
    const maxOutput = bounds.memoryMb * 1024 * 1024;
    let outputBytes = 0;
    const collect = (into: Buffer[]) => (b: Buffer) => {
      outputBytes += b.length;
      if (outputBytes > maxOutput) return kill(pdfOutOfMemory(bounds.memoryMb));
      into.push(b);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    const timer = setTimeout(() => kill(pdfTimeout(bounds.timeoutMs)), remaining);
    const onAbort = () => kill(aborted());
    bounds.signal?.addEventListener('abort', onAbort, { once: true });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exit) => resolve(exit));
    }).finally(() => {
      clearTimeout(timer);
      bounds.signal?.removeEventListener('abort', onAbort);
    });
    if (stopped) throw stopped;
    const stderr = Buffer.concat(err).toString('utf8');
    if (/bad_alloc|out of memory|cannot allocate/i.test(stderr) || code === null) throw pdfOutOfMemory(bounds.memoryMb);
    if (code === 0 || code === 3)
      return { stdout: Buffer.concat(out), warnings: code === 3 ? qpdfMessages(stderr) : [] };
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
