/**
 * worker_threads entry: runs comparePngs off the main thread. Decoding and encoding a full-page PNG takes
 * long enough to freeze the event loop (see ARCHITECTURE.md, "What makes it fast").
 * Loaded by DiffPool from dist/ (compiled), one request at a time per thread.
 */
import { parentPort } from 'node:worker_threads';
import { comparePngs, type DiffOptions, type DiffResult } from './compare.js';

export interface DiffRequest {
  id: number;
  /** Fresh ArrayBuffers owned by this message (transferred, never a Buffer pool slab). */
  baseline: ArrayBuffer;
  current: ArrayBuffer;
  options: DiffOptions;
}

export type DiffReply =
  | { id: number; ok: true; result: Omit<DiffResult, 'diffPng'> & { diffPng: ArrayBuffer | null } }
  | { id: number; ok: false; message: string };

/**
 * An ArrayBuffer holding exactly these bytes that is safe to transfer. A small Buffer may be a view into
 * Node's shared allocation pool; transferring that would detach every other Buffer in the slab.
 */
function ownBuffer(bytes: Buffer): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) {
    return bytes.buffer;
  }
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}

function handle(req: DiffRequest): { reply: DiffReply; transfer: ArrayBuffer[] } {
  try {
    const result = comparePngs(Buffer.from(req.baseline), Buffer.from(req.current), req.options);
    const diffPng = result.diffPng === null ? null : ownBuffer(result.diffPng);
    return { reply: { id: req.id, ok: true, result: { ...result, diffPng } }, transfer: diffPng ? [diffPng] : [] };
  } catch (err) {
    // A bad input fails this request only; the thread stays up for the next one.
    return {
      reply: { id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) },
      transfer: [],
    };
  }
}

const port = parentPort;
if (port === null) throw new Error('src/diff/pixels/thread.ts must be started as a worker thread');
port.on('message', (req: DiffRequest) => {
  const { reply, transfer } = handle(req);
  port.postMessage(reply, transfer);
});
