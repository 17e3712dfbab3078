/**
 * worker_threads entry: diff.filters' text filters over one capture's blocks (applyTextFilters), started
 * by filterTextInThread from dist/ (compiled). The input arrives in workerData, the result goes back as
 * one message; the thread then ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Filter } from '../domain/filters.js';
import type { PageBlock } from '../domain/page-facts.js';
import { applyTextFilters, type FilteredText } from './text-filters.js';

export interface TextFilterInput {
  blocks: PageBlock[];
  filters: Filter[];
}
export type TextFilterReply = { ok: true; result: FilteredText } | { ok: false; message: string };

const port = parentPort;
if (port === null) throw new Error('src/filters/thread.ts must be started as a worker thread');
const { blocks, filters } = workerData as TextFilterInput;
let reply: TextFilterReply;
try {
  reply = { ok: true, result: applyTextFilters(blocks, filters) };
} catch (err) {
  reply = { ok: false, message: err instanceof Error ? err.message : String(err) };
}
port.postMessage(reply);
