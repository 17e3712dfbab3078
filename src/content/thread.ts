/**
 * worker_threads entry: one JSON or text body read into lines (read-text.ts) per thread, started by
 * readTextInThread from dist/ (compiled). The input arrives in workerData, the result goes back as one
 * message; the thread then ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { JsonTooDeep, readText, type ReadTextInput, type TextReading } from './read-text.js';

export type TextReadReply = { ok: true; result: TextReading } | { ok: false; message: string; tooDeep: boolean };

const port = parentPort;
if (port === null) throw new Error('src/content/thread.ts must be started as a worker thread');
let reply: TextReadReply;
try {
  reply = { ok: true, result: readText(workerData as ReadTextInput) };
} catch (err) {
  reply = { ok: false, message: err instanceof Error ? err.message : String(err), tooDeep: err instanceof JsonTooDeep };
}
port.postMessage(reply);
