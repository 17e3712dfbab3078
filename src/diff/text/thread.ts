/**
 * worker_threads entry: one text comparison (diffBlocks) per thread, started by compareTexts from dist/
 * (compiled). The input arrives in workerData, the result goes back as one message; the thread then ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PageBlock } from '../../domain/page-facts.js';
import type { TextPattern } from '../../domain/monitor-settings.js';
import { diffBlocks, type TextComparison } from './compare.js';

export interface TextCompareInput {
  before: PageBlock[];
  after: PageBlock[];
  ignoreText: TextPattern[];
}
export type TextCompareReply = { ok: true; result: TextComparison } | { ok: false; message: string };

const port = parentPort;
if (port === null) throw new Error('src/diff/text/thread.ts must be started as a worker thread');
const { before, after, ignoreText } = workerData as TextCompareInput;
let reply: TextCompareReply;
try {
  reply = { ok: true, result: diffBlocks(before, after, ignoreText) };
} catch (err) {
  reply = { ok: false, message: err instanceof Error ? err.message : String(err) };
}
port.postMessage(reply);
