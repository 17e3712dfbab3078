// A watched PDF read for comparison: its text by page (as blocks with their boxes) and a picture of
// its first pages for the visual diff. Built on poppler's pdftotext and pdftoppm, run as bounded
// subprocesses so a hostile PDF costs a bounded time and memory and never the event loop.

import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { humanNumber } from '../domain/units.js';
import { withWorkDir, type Bounds } from '../pdf/bounded-process.js';
import { projectRoot } from '../project-root.js';
import type { PdfReadThreadInput, PdfReadThreadReply } from './pdf-read-thread.js';
import {
  installedPoppler,
  popplerMissing,
  readAborted,
  readOutOfMemory,
  readTimeout,
  runPoppler,
  textTooLong,
  unreadable,
} from './poppler.js';

/** One text block of a page: a paragraph as pdftotext lays it out. */
export interface PdfBlock {
  text: string;
  /** Where it is in the picture, image pixels (null for pages past the picture). */
  box: { x: number; y: number; width: number; height: number } | null;
}

export interface PdfPage {
  /** 1-based page number. */
  page: number;
  blocks: PdfBlock[];
}

export interface PdfReading {
  /** The document's page count. */
  pageCount: number;
  /** Pages whose text was read (fewer than pageCount when maxPages cut it). */
  pagesRead: number;
  /** Why only part was read, in words; absent when all of it was. */
  cut?: string;
  pages: PdfPage[];
  /** PNG: the first pages, one under the other. */
  picture: Buffer;
}

export interface PdfReadLimits {
  /** Pages whose text is read (at least the first is always read). */
  maxPages: number;
  /** Pages drawn into the picture (at least the first is always drawn). */
  picturePages: number;
  timeoutMs: number;
  memoryMb: number;
  /** The most text pdftotext may print for the pages read, as XML (default 16 MiB); more fails the read. */
  maxTextBytes?: number;
}

/** Default of PdfReadLimits.maxTextBytes: ~50 dense pages need 3 MiB. */
export const DEFAULT_MAX_TEXT_BYTES = 16 * 1024 * 1024;
/**
 * The picture's pages are drawn at 72 dpi (a PDF point a pixel), smaller when a page is wider than this
 * or taller than PICTURE_MAX_PAGE_HEIGHT: a poster or a hostile 200-inch page stays a picture of bounded size.
 */
export const PICTURE_MAX_WIDTH = 1240;
export const PICTURE_MAX_PAGE_HEIGHT = 3508;

/** The compiled thread script: a worker cannot load .ts, so even under vitest this runs dist/. */
export const PDF_READ_THREAD_SCRIPT = join(projectRoot(), 'dist/src/content/pdf-read-thread.js');

/**
 * Read a PDF. A file poppler cannot read, or one over a bound, rejects with an AppError
 * (`render_failed`) whose message says why in words.
 */
export async function readPdf(bytes: Buffer, limits: PdfReadLimits, signal: AbortSignal): Promise<PdfReading> {
  if (!installedPoppler()) throw popplerMissing();
  if (!existsSync(PDF_READ_THREAD_SCRIPT))
    throw new Error(`PDF reader thread script ${PDF_READ_THREAD_SCRIPT} not found: run \`npm run build\` first`);
  if (signal.aborted) throw readAborted();
  // One deadline for the whole read; a failure of one step stops the others (inner), as does the caller.
  const inner = new AbortController();
  const stopAll = () => inner.abort();
  signal.addEventListener('abort', stopAll, { once: true });
  const bounds: Bounds = {
    deadline: Date.now() + limits.timeoutMs,
    timeoutMs: limits.timeoutMs,
    memoryMb: limits.memoryMb,
    signal: inner.signal,
  };
  // Started now, it loads its modules while poppler works.
  const worker = new Worker(PDF_READ_THREAD_SCRIPT, { resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb } });
  // An error or exit before the thread is asked is reported when it is (inThread), not lost.
  const gone = new Promise<Error>((resolve) => {
    worker.once('error', resolve);
    worker.once('exit', (code) => resolve(new Error(`PDF reader thread exited with code ${code}`)));
  });
  try {
    return await withWorkDir(async (dir) => {
      await writeFile(join(dir, INPUT), bytes, { mode: 0o600 });
      const picturePages = Math.max(1, limits.picturePages);
      const info = parsePdfinfo(
        (
          await runPoppler('pdfinfo', ['-f', '1', '-l', String(picturePages), INPUT], dir, bounds, SMALL_OUTPUT)
        ).toString('utf8'),
      );
      if (info.pageCount < 1) throw unreadable('poppler finds no page in it');
      // At least the first page: pdftotext refuses an empty range.
      const pagesRead = Math.min(Math.max(1, limits.maxPages), info.pageCount);
      const pictured = Math.min(picturePages, info.pageCount);
      const maxTextBytes = limits.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
      let failure: unknown;
      const failFast = <T>(run: Promise<T>) =>
        run.catch((err: unknown) => {
          failure ??= err;
          inner.abort();
          throw err;
        });
      const [text] = await Promise.allSettled([
        failFast(
          runPoppler(
            'pdftotext',
            ['-enc', 'UTF-8', '-bbox-layout', '-f', '1', '-l', String(pagesRead), INPUT, '-'],
            dir,
            bounds,
            maxTextBytes,
            () => textTooLong(maxTextBytes, pagesRead),
          ),
        ),
        failFast(
          runPoppler(
            'pdftoppm',
            [
              '-png',
              '-r',
              pictureResolution(info.pageSizes.slice(0, pictured)),
              '-f',
              '1',
              '-l',
              String(pictured),
              INPUT,
              'page',
            ],
            dir,
            bounds,
            SMALL_OUTPUT,
          ),
        ),
      ]);
      if (failure !== undefined || text.status !== 'fulfilled') throw failure;
      const pictureFiles = (await readdir(dir))
        .map((name) => ({ name, page: Number(/^page-(\d+)\.png$/.exec(name)?.[1]) }))
        .filter((f) => f.page > 0)
        .sort((a, b) => a.page - b.page)
        .map((f) => join(dir, f.name));
      const { pages, picture } = await inThread(worker, gone, { xml: toArrayBuffer(text.value), pictureFiles }, bounds);
      return {
        pageCount: info.pageCount,
        pagesRead,
        ...(pagesRead < info.pageCount && {
          cut: `read the first ${humanNumber(pagesRead)} of ${humanNumber(info.pageCount)} pages (monitors.pdfMaxPages)`,
        }),
        pages,
        picture,
      };
    }, 'pagewatch-pdfread-');
  } finally {
    signal.removeEventListener('abort', stopAll);
    await worker.terminate();
  }
}

const INPUT = 'input.pdf';
/** What pdfinfo and pdftoppm print on stdout: a few lines at most. */
const SMALL_OUTPUT = 1024 * 1024;

interface PdfInfo {
  pageCount: number;
  /** The first pages' sizes as shown (rotation applied), in points. */
  pageSizes: { width: number; height: number }[];
}

/** `pdfinfo -f 1 -l N`: "Pages:  12", "Page    1 size:  612 x 792 pts (letter)", "Page    1 rot:   90". */
export function parsePdfinfo(out: string): PdfInfo {
  const pageCount = Number(/^Pages:\s+(\d+)/m.exec(out)?.[1] ?? 0);
  const sizes = new Map<number, { width: number; height: number }>();
  for (const m of out.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts/gm))
    sizes.set(Number(m[1]), { width: Number(m[2]), height: Number(m[3]) });
  for (const m of out.matchAll(/^Page\s+(\d+) rot:\s+(\d+)/gm)) {
    const size = sizes.get(Number(m[1]));
    if (size && Number(m[2]) % 180 === 90) sizes.set(Number(m[1]), { width: size.height, height: size.width });
  }
  return { pageCount, pageSizes: [...sizes.entries()].sort(([a], [b]) => a - b).map(([, size]) => size) };
}

/** pdftoppm's -r: 72 dpi unless the widest or tallest pictured page would exceed the picture's bounds. */
export function pictureResolution(sizes: { width: number; height: number }[]): string {
  const widest = Math.max(0, ...sizes.map((s) => s.width));
  const tallest = Math.max(0, ...sizes.map((s) => s.height));
  const scale = Math.min(
    1,
    widest > 0 ? PICTURE_MAX_WIDTH / widest : 1,
    tallest > 0 ? PICTURE_MAX_PAGE_HEIGHT / tallest : 1,
  );
  return (72 * scale).toFixed(3);
}

const toArrayBuffer = (b: Buffer) =>
  (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength
    ? b.buffer
    : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as ArrayBuffer;

/** The thread's half of the read, under the same deadline and abort as poppler's. */
function inThread(
  worker: Worker,
  gone: Promise<Error>,
  input: PdfReadThreadInput,
  bounds: Bounds,
): Promise<{ pages: PdfPage[]; picture: Buffer }> {
  if (bounds.signal?.aborted) return Promise.reject(readAborted());
  const remaining = bounds.deadline - Date.now();
  if (remaining <= 0) return Promise.reject(readTimeout(bounds.timeoutMs));
  let onAbort = () => {};
  return new Promise<{ pages: PdfPage[]; picture: Buffer }>((resolve, reject) => {
    const timer = setTimeout(() => reject(readTimeout(bounds.timeoutMs)), remaining);
    const settle = (fn: () => void) => {
      clearTimeout(timer);
      fn();
    };
    onAbort = () => settle(() => reject(readAborted()));
    bounds.signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: PdfReadThreadReply) =>
      settle(() =>
        reply.ok
          ? resolve({ pages: reply.pages, picture: Buffer.from(reply.picture) })
          : reject(unreadable(`its text or picture could not be taken apart (${reply.message})`)),
      ),
    );
    void gone.then((err: Error & { code?: string }) =>
      settle(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? readOutOfMemory(bounds.memoryMb) : err)),
    );
    worker.postMessage(input, [input.xml]);
  }).finally(() => bounds.signal?.removeEventListener('abort', onAbort));
}
