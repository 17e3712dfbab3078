// A PDF tool (qpdf, poppler) in a child process under the engine's bounds: a deadline (the process group
// is killed when it passes or the caller aborts), an address-space limit (prlimit --as) and a cap on the
// output held in this process, so a hostile file ends in a clear error instead of a hang, an exhausted
// machine or a heap filled with its output. Callers say which error each bound ends in (the PDF tools and
// the PDF reader of monitors word theirs differently) and read the exit themselves.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppError } from '../errors.js';

/** The limits one engine call runs under: an absolute deadline (shared by all its steps) and memory per process. */
export interface Bounds {
  deadline: number;
  timeoutMs: number;
  memoryMb: number;
  signal?: AbortSignal;
}

/** The error each way of being stopped ends in. */
export interface Stops {
  timeout: () => AppError;
  /** More output than maxOutputBytes. */
  outputTooLarge: () => AppError;
  aborted: () => AppError;
}

export interface BoundedCommand {
  command: string;
  args: string[];
  cwd: string;
  bounds: Bounds;
  /** stdout and stderr together, held in this process; past it the process is killed. */
  maxOutputBytes: number;
  /** stdout alone, when it has a bound of its own (what the tool prints as its result). */
  maxStdoutBytes?: number;
  /**
   * stderr kept past this many bytes is dropped and not counted against maxOutputBytes: a tool that
   * reports every bad byte of a broken file (poppler) then fails on its own terms, not on its chatter.
   * Absent: all of stderr is kept and counted.
   */
  keptStderrBytes?: number;
  stops: Stops;
}

export interface BoundedExit {
  /** null when a signal ended it (under prlimit --as, usually a failed allocation: abort or segfault). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/** A directory of its own (mode 0700) for one engine call's files, removed afterwards whatever happens. */
export async function withWorkDir<T>(use: (dir: string) => Promise<T>, prefix = 'pagewatch-pdf-'): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `command args` under `bounds`. Resolves with how it exited, whatever the exit code; rejects with
 * `stops`' error when the deadline passes (or had passed), the caller aborts (or had aborted) or the
 * output is over its cap, having killed the whole process group first.
 */
export async function runBounded(run: BoundedCommand): Promise<BoundedExit> {
  const { bounds, stops } = run;
  if (bounds.signal?.aborted) throw stops.aborted();
  const remaining = bounds.deadline - Date.now();
  if (remaining <= 0) throw stops.timeout();
  const child = spawn('prlimit', [`--as=${bounds.memoryMb * 1024 * 1024}`, '--', run.command, ...run.args], {
    cwd: run.cwd,
    detached: true, // its own process group, killed whole
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let stopped: AppError | undefined;
  const kill = (why: () => AppError) => {
    stopped ??= why();
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  let outputBytes = 0;
  let stdoutBytes = 0;
  let stderrBytes = 0;
  child.stdout.on('data', (b: Buffer) => {
    outputBytes += b.length;
    stdoutBytes += b.length;
    if (outputBytes > run.maxOutputBytes || stdoutBytes > (run.maxStdoutBytes ?? Infinity))
      return kill(stops.outputTooLarge);
    out.push(b);
  });
  child.stderr.on('data', (b: Buffer) => {
    const kept = run.keptStderrBytes;
    if (kept !== undefined) {
      if (stderrBytes >= kept) return;
      b = b.subarray(0, kept - stderrBytes);
    }
    stderrBytes += b.length;
    outputBytes += b.length;
    if (outputBytes > run.maxOutputBytes) return kill(stops.outputTooLarge);
    err.push(b);
  });
  const timer = setTimeout(() => kill(stops.timeout), remaining);
  const onAbort = () => kill(stops.aborted);
  bounds.signal?.addEventListener('abort', onAbort, { once: true });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    clearTimeout(timer);
    bounds.signal?.removeEventListener('abort', onAbort);
  });
  if (stopped) throw stopped;
  return { ...exit, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') };
}
