// At most `concurrency` renders run at once; up to `queueSize` more wait in line, and beyond that a
// request is refused at once (429 queue_full) rather than piling up until every client times out.
import { queueFull } from '../errors.js';
import { abortReason } from './abortable.js';

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class RenderLimiter {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private avgRenderMs = 500;
  private idleResolvers: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly queueSize: number,
    /** Told how long each render waited for its slot (ms; 0 when one was free): the status page's queue wait. */
    private readonly onWaited: (ms: number) => void = () => undefined,
    /** What waits in this line, as a refusal names it ("The render queue is full..."). */
    private readonly queueName = 'render',
  ) {}

  get activeCount(): number {
    return this.active;
  }
  get queuedCount(): number {
    return this.waiting.length;
  }

  /**
   * Run `fn` when a slot is free. Rejects with queue_full, or with the signal's reason if aborted while
   * waiting. `background` work (the job worker, which bounds its own demand) waits in the same line —
   * first come, first served, so neither kind starves the other — but is never refused for a full queue.
   */
  async run<T>(signal: AbortSignal, fn: () => Promise<T>, options: { background?: boolean } = {}): Promise<T> {
    const asked = performance.now();
    await this.acquire(signal, options.background === true);
    const started = performance.now();
    this.onWaited(started - asked);
    try {
      return await fn();
    } finally {
      // Exponential moving average, for an honest Retry-After.
      this.avgRenderMs = this.avgRenderMs * 0.8 + (performance.now() - started) * 0.2;
      this.releaseSlot();
    }
  }

  /** Resolves when nothing is running or waiting (used by graceful shutdown). */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  private acquire(signal: AbortSignal, background: boolean): Promise<void> {
    signal.throwIfAborted();
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    if (!background && this.waiting.length >= this.queueSize) {
      const seconds = this.retryAfterSeconds();
      throw queueFull(seconds, `The ${this.queueName} queue is full: try again in ${seconds} s.`);
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        this.notifyIfIdle();
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) {
      next.resolve(); // the slot passes straight to the next in line
    } else {
      this.active--;
      this.notifyIfIdle();
    }
  }

  private notifyIfIdle(): void {
    if (this.active === 0 && this.waiting.length === 0) {
      for (const resolve of this.idleResolvers.splice(0)) resolve();
    }
  }

  private retryAfterSeconds(): number {
    const seconds = ((this.waiting.length + this.active) / this.concurrency) * (this.avgRenderMs / 1000);
    return Math.max(1, Math.ceil(seconds));
  }
}
