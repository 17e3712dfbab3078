// markdownPage off the event loop when the Markdown is large. markdown-it is linear but not fast on dense
// markup (measured on the 2-core CI box: ~0.8 s per MiB of headings, tables, lists and code; ~30 ms per MiB
// of prose), and a request body may hold 8 MiB: converted on the main thread, that would stall every other
// request for seconds. Small documents (the usual case) are converted in place: a thread costs ~30 ms to start.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../../project-root.js';
import { markdownPage, MarkdownTemplateError, type MarkdownSource } from './markdown-page.js';
import type { MarkdownPageInput, MarkdownPageReply } from './thread.js';

/** The compiled thread script: a worker cannot load .ts, so even under vitest this runs dist/. */
export const MARKDOWN_THREAD_SCRIPT = join(projectRoot(), 'dist/src/render/markdown/thread.js');

/** Up to this many characters of Markdown are converted in place (at most a few tens of ms, measured). */
export const MARKDOWN_IN_PLACE_CHARS = 64 * 1024;

/** A conversion still running after this long is stopped (linear input never gets near it: ~7 s for 8 MiB). */
const TIME_LIMIT_MS = 60_000;

/** markdownPage, in a thread of its own when the sources are large. Rejects with MarkdownTemplateError as it does. */
export async function renderMarkdownPage(
  sources: MarkdownSource[],
  template?: string,
  lang?: string,
  options: { inPlaceChars?: number } = {},
): Promise<string> {
  const chars = sources.reduce((n, s) => n + s.markdown.length, 0);
  if (chars <= (options.inPlaceChars ?? MARKDOWN_IN_PLACE_CHARS)) return markdownPage(sources, template, lang);
  if (!existsSync(MARKDOWN_THREAD_SCRIPT))
    throw new Error(`markdown thread script ${MARKDOWN_THREAD_SCRIPT} not found: run \`npm run build\` first`);
  const input: MarkdownPageInput = { sources, template, lang };
  const worker = new Worker(MARKDOWN_THREAD_SCRIPT, {
    workerData: input,
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`converting the Markdown took longer than ${TIME_LIMIT_MS / 1000} s`)),
        TIME_LIMIT_MS,
      );
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        fn();
      };
      worker.once('message', (reply: MarkdownPageReply) =>
        settle(() => {
          if (reply.ok) resolve(reply.html);
          else reject(reply.template ? new MarkdownTemplateError(reply.message) : new Error(reply.message));
        }),
      );
      worker.once('error', (err) =>
        settle(() => reject(new Error(`markdown thread crashed: ${err.message}`, { cause: err }))),
      );
      worker.once('exit', (code) => settle(() => reject(new Error(`markdown thread exited with code ${code}`))));
    });
  } finally {
    await worker.terminate();
  }
}
