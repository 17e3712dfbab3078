// JSON and text content read in a worker thread of its own (read-text.ts does the work), started for
// each capture and ended after it: parsing 20 MiB of hostile JSON or splitting 20 MiB of text takes
// long enough to matter, and a thread's heap is bounded (resourceLimits) and it can be stopped when it
// runs too long, where work on the main thread would hold every request of the service meanwhile.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { renderFailed } from '../errors.js';
import { projectRoot } from '../project-root.js';
import type { ReadTextInput, TextReading } from './read-text.js';
import type { TextReadReply } from './thread.js';

/** The compiled thread script: a worker cannot load .ts, so even under vitest this runs dist/. */
export const CONTENT_THREAD_SCRIPT = join(projectRoot(), 'dist/src/content/thread.js');

/** A reading still running after this long is stopped and the capture fails. */
export const CONTENT_READ_TIME_LIMIT_MS = 20_000;
/** The thread's heap: a 20 MiB JSON document parses into a few times its size. */
export const CONTENT_READ_MEMORY_MB = 512;

export async function readTextInThread(
  input: ReadTextInput,
  signal: AbortSignal,
  options: { timeLimitMs?: number; memoryMb?: number; script?: string } = {},
): Promise<TextReading> {
  const script = options.script ?? CONTENT_THREAD_SCRIPT;
  if (!existsSync(script)) throw new Error(`content thread script ${script} not found: run \`npm run build\` first`);
  const memoryMb = options.memoryMb ?? CONTENT_READ_MEMORY_MB;
  const limit = options.timeLimitMs ?? CONTENT_READ_TIME_LIMIT_MS;
  const what = input.kind === 'json' ? 'the JSON' : 'the text';
  const worker = new Worker(script, { workerData: input, resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
  try {
    return await new Promise<TextReading>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(renderFailed(`reading ${what} took longer than ${limit / 1000} s and was stopped`)),
        limit,
      );
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = () => settle(() => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')));
      signal.addEventListener('abort', onAbort, { once: true });
      worker.once('message', (reply: TextReadReply) =>
        settle(() =>
          reply.ok
            ? resolve(reply.result)
            : reject(reply.tooDeep ? renderFailed(reply.message) : new Error(`content thread: ${reply.message}`)),
        ),
      );
      worker.once('error', (err) =>
        settle(() =>
          reject(
            (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? renderFailed(`reading ${what} needed more than ${memoryMb} MB and was stopped`, err)
              : new Error(`content thread crashed: ${err.message}`, { cause: err }),
          ),
        ),
      );
      worker.once('exit', (code) => settle(() => reject(new Error(`content thread exited with code ${code}`))));
    });
  } finally {
    await worker.terminate();
  }
}
