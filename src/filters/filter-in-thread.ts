// diff.filters' text filters over a capture's blocks, off the main thread when they hold user regexes:
// an extract pattern runs on RE2 (linear time), but over up to 200,000 characters of the page's text
// and up to 20 filters, so it runs in a thread of its own under a time limit, like the text comparison
// (src/diff/text/compare-in-thread.ts). Without extract the filters are a few passes over the list and
// run here.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { renderFailed } from '../errors.js';
import type { Filter } from '../domain/filters.js';
import type { PageBlock } from '../domain/page-facts.js';
import { projectRoot } from '../project-root.js';
import { applyTextFilters, hasTextFilters, hasUserPatterns, type FilteredText } from './text-filters.js';
import type { TextFilterInput, TextFilterReply } from './thread.js';

/** The compiled thread script: a worker cannot load .ts, so even under vitest this runs dist/. */
export const TEXT_FILTER_THREAD_SCRIPT = join(projectRoot(), 'dist/src/filters/thread.js');

/** Filtering still running after this long is stopped and the capture fails. */
export const TEXT_FILTER_TIME_LIMIT_MS = 10_000;

export async function filterTextInThread(
  blocks: PageBlock[],
  filters: Filter[],
  options: { timeLimitMs?: number; script?: string } = {},
): Promise<FilteredText> {
  if (!hasTextFilters(filters)) return { blocks, missing: [] };
  if (!hasUserPatterns(filters)) return fail(() => applyTextFilters(blocks, filters));
  const script = options.script ?? TEXT_FILTER_THREAD_SCRIPT;
  if (!existsSync(script)) throw new Error(`filter thread script ${script} not found: run \`npm run build\` first`);
  const input: TextFilterInput = { blocks, filters };
  const worker = new Worker(script, { workerData: input, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  const limit = options.timeLimitMs ?? TEXT_FILTER_TIME_LIMIT_MS;
  try {
    return await new Promise<FilteredText>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            renderFailed(
              `applying diff.filters to the page's text took longer than ${limit / 1000} s and was stopped; an ` +
                `extract pattern may be too slow`,
            ),
          ),
        limit,
      );
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        fn();
      };
      worker.once('message', (reply: TextFilterReply) =>
        settle(() => (reply.ok ? resolve(reply.result) : reject(renderFailed(reply.message)))),
      );
      worker.once('error', (err) =>
        settle(() => reject(new Error(`filter thread crashed: ${err.message}`, { cause: err }))),
      );
      worker.once('exit', (code) => settle(() => reject(new Error(`filter thread exited with code ${code}`))));
    });
  } finally {
    await worker.terminate();
  }
}

/** A filter that cannot run (a stored pattern RE2 now refuses) fails the capture with its reason. */
function fail(step: () => FilteredText): FilteredText {
  try {
    return step();
  } catch (err) {
    throw renderFailed((err as Error).message, err);
  }
}
