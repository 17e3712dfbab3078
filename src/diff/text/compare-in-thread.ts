// The text blocks of two captures compared: diffBlocks (compare.ts) run in a thread of its own,
// started for each comparison and ended after it. Two reasons: a comparison of two large, unrelated
// pages takes up to a few hundred ms (measured: ~200 ms for 2 × 2,000 blocks, all different), and the
// monitor's ignoreText patterns are user code: they run on RE2 (linear time, ignore-text.ts), and the
// thread's time limit stays as a backstop, since a thread can be stopped when it runs too long and a
// loop on the main thread cannot.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { renderFailed } from '../../errors.js';
import type { PageBlock } from '../../domain/page-facts.js';
import type { TextPattern } from '../../domain/monitor-settings.js';
import { projectRoot } from '../../project-root.js';
import { compileIgnoreText, IgnoreTextUnusable } from './ignore-text.js';
import type { TextCompareInput, TextCompareReply } from './thread.js';
import type { TextComparison } from './compare.js';

/** The compiled thread script: a worker cannot load .ts, so even under vitest this runs dist/. */
export const TEXT_THREAD_SCRIPT = join(projectRoot(), 'dist/src/diff/text/thread.js');

/** A comparison still running after this long is stopped and the capture fails (a slow ignoreText pattern). */
export const TEXT_COMPARE_TIME_LIMIT_MS = 10_000;

export async function compareTexts(
  before: PageBlock[],
  after: PageBlock[],
  options: { ignoreText: TextPattern[]; timeLimitMs?: number; script?: string },
): Promise<TextComparison> {
  // A stored pattern RE2 cannot compile fails every comparison the same way, text changed or not.
  try {
    compileIgnoreText(options.ignoreText);
  } catch (err) {
    if (err instanceof IgnoreTextUnusable) throw renderFailed(err.message, err);
    throw err;
  }
  // The common case — a page whose text did not change — needs no thread: the same texts in the same
  // order are no change whatever ignoreText blanks (boxes may move; a move is not a text change).
  if (sameTexts(before, after)) return { changes: [], total: 0 };
  const script = options.script ?? TEXT_THREAD_SCRIPT;
  if (!existsSync(script)) throw new Error(`text thread script ${script} not found: run \`npm run build\` first`);
  const input: TextCompareInput = { before, after, ignoreText: options.ignoreText };
  const worker = new Worker(script, { workerData: input, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  const limit = options.timeLimitMs ?? TEXT_COMPARE_TIME_LIMIT_MS;
  try {
    return await new Promise<TextComparison>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            renderFailed(
              `comparing the page's text took longer than ${limit / 1000} s and was stopped; a diff.ignoreText ` +
                `pattern may be too slow`,
            ),
          ),
        limit,
      );
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        fn();
      };
      worker.once('message', (reply: TextCompareReply) =>
        settle(() => (reply.ok ? resolve(reply.result) : reject(new Error(`text comparison: ${reply.message}`)))),
      );
      worker.once('error', (err) =>
        settle(() => reject(new Error(`text thread crashed: ${err.message}`, { cause: err }))),
      );
      worker.once('exit', (code) => settle(() => reject(new Error(`text thread exited with code ${code}`))));
    });
  } finally {
    await worker.terminate();
  }
}

function sameTexts(before: PageBlock[], after: PageBlock[]): boolean {
  return before.length === after.length && before.every((block, i) => block.text === after[i]!.text);
}

/**
 * A capture's text blocks as stored beside it (`<monitorId>/<captureId>-text`), read back; undefined when
 * the file is damaged (not a JSON list): its text is then unknown, rather than every capture failing on it.
 * Each block is checked again where it is used (diffBlocks, withElements).
 */
export function parseStoredBlocks(bytes: Buffer): PageBlock[] | undefined {
  try {
    const blocks: unknown = JSON.parse(bytes.toString('utf8'));
    return Array.isArray(blocks) ? (blocks as PageBlock[]) : undefined;
  } catch {
    return undefined;
  }
}
