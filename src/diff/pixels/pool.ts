/**
 * A small pool of worker threads running comparePngs, so a full-page diff never blocks the event loop.
 * Threads start on first use, one task each at a time; further tasks wait in a FIFO queue.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Lifecycle } from '../../lifecycle.js';
import { projectRoot } from '../../project-root.js';
import type { DiffOptions, DiffResult } from './compare.js';
import type { DiffReply, DiffRequest } from './thread.js';

export interface DiffPoolOptions {
  /**
   * The thread script. Default: the compiled dist/src/diff/pixels/thread.js — a worker cannot load .ts, and this path
   * is the same whether the caller runs from src/ under vitest or from dist/. Tests pass other scripts.
   */
  script?: string;
}

interface Task {
  baseline: Buffer;
  current: Buffer;
  options: DiffOptions;
  resolve: (result: DiffResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The task this thread is running; null when idle. */
  task: Task | null;
}

/**
 * A fresh ArrayBuffer with a copy of the bytes: a Buffer may share Node's pooled slab, which must never be transferred.
 */
function transferable(bytes: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}

/** The compiled thread script: a worker cannot load .ts, so even under vitest the pool runs dist/. */
export const DEFAULT_THREAD_SCRIPT = join(projectRoot(), 'dist/src/diff/pixels/thread.js');

export class DiffPool implements Lifecycle {
  readonly name = 'diff pool';
  private readonly size: number;
  private readonly script: string;
  private readonly slots = new Set<Slot>();
  private readonly queue: Task[] = [];
  private nextId = 1;
  private stopped = false;

  constructor(size: number, options: DiffPoolOptions = {}) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`DiffPool size must be a positive integer, got ${size}`);
    this.size = size;
    this.script = options.script ?? DEFAULT_THREAD_SCRIPT;
  }

  compare(baseline: Buffer, current: Buffer, options: DiffOptions): Promise<DiffResult> {
    if (this.stopped) return Promise.reject(new Error('diff pool is stopped'));
    return new Promise<DiffResult>((resolve, reject) => {
      this.queue.push({ baseline, current, options, resolve, reject });
      this.dispatch();
    });
  }

  /** Nothing to do: threads start on first use. */
  async start(): Promise<void> {}

  /**
   * Terminates every thread; running and queued compares reject. Later compares reject at once. The
   * deadline is not waited for: the captures that asked for compares have been stopped before.
   */
  async stop(_deadline?: number): Promise<void> {
    this.stopped = true;
    const stopped = new Error('diff pool is stopped');
    for (const task of this.queue.splice(0)) task.reject(stopped);
    const exits: Promise<number>[] = [];
    for (const slot of this.slots) {
      slot.task?.reject(stopped);
      slot.task = null;
      exits.push(slot.worker.terminate());
    }
    this.slots.clear();
    await Promise.all(exits);
  }

  private dispatch(): void {
    while (!this.stopped && this.queue.length > 0) {
      let slot = [...this.slots].find((s) => s.task === null);
      if (slot === undefined) {
        if (this.slots.size >= this.size) return; // all busy: the task waits for a thread to come free
        try {
          slot = this.spawn();
        } catch (err) {
          (this.queue.shift() as Task).reject(err instanceof Error ? err : new Error(String(err)));
          continue;
        }
      }
      this.run(slot, this.queue.shift() as Task);
    }
  }

  private spawn(): Slot {
    if (!existsSync(this.script)) {
      throw new Error(`diff worker script ${this.script} not found: run \`npm run build\` first`);
    }
    const worker = new Worker(this.script);
    // An idle thread must not keep the process alive; run() refs it while a task is in flight, since then the
    // caller is awaiting it and nothing else may be holding the loop open.
    worker.unref();
    const slot: Slot = { worker, task: null };
    this.slots.add(slot);
    worker.on('message', (reply: DiffReply) => this.settle(slot, reply));
    worker.on('messageerror', (err) =>
      this.fail(slot, new Error('diff thread sent an unreadable reply', { cause: err })),
    );
    worker.on('error', (err) => this.fail(slot, new Error(`diff thread crashed: ${err.message}`, { cause: err })));
    worker.on('exit', (code) => this.fail(slot, new Error(`diff thread exited with code ${code}`)));
    return slot;
  }

  private run(slot: Slot, task: Task): void {
    slot.task = task;
    slot.worker.ref();
    const req: DiffRequest = {
      id: this.nextId++,
      baseline: transferable(task.baseline),
      current: transferable(task.current),
      options: task.options,
    };
    try {
      slot.worker.postMessage(req, [req.baseline, req.current]);
    } catch (err) {
      // e.g. options that cannot be cloned: this task fails, the thread is still fine.
      slot.task = null;
      slot.worker.unref();
      task.reject(new Error('send diff task to thread', { cause: err }));
    }
  }

  private settle(slot: Slot, reply: DiffReply): void {
    const task = slot.task;
    slot.task = null;
    slot.worker.unref();
    if (task !== null) {
      if (reply.ok) {
        const { diffPng, ...rest } = reply.result;
        task.resolve({ ...rest, diffPng: diffPng === null ? null : Buffer.from(diffPng) });
      } else {
        task.reject(new Error(reply.message));
      }
    }
    this.dispatch();
  }

  /** The thread is gone or unusable: fail its task, drop it, and let the next task start a replacement. */
  private fail(slot: Slot, err: Error): void {
    if (!this.slots.delete(slot)) return; // already dropped (stop(), or 'error' followed by 'exit')
    const task = slot.task;
    slot.task = null;
    task?.reject(err);
    void slot.worker.terminate();
    this.dispatch();
  }
}
