// Writes that arrive together go in one transaction. The stores are asynchronous over one connection
// (SQLite) or a pool (PostgreSQL); N transactions of a burst each wait for the connection in turn and
// interleave with everything else the process does, where one transaction of N does the same writes
// at once. Used for schedule ticks (every monitor on `* * * * *` ticks in the same instant) and job
// submissions (a client that sends 100 jobs at once).
//
// Items are gathered until the event loop's next turn, then run in one transaction, in `order` if one
// is given (so that two nodes lock the same rows in the same order). An item that is refused (an
// AppError: queue full, idempotency conflict) is refused alone, so `one` must refuse before it writes,
// as the queue's checks do. Any other failure rolls the transaction back, and then each item runs in a
// transaction of its own: one bad item costs the others nothing.
import { AppError } from '../errors.js';
import type { Backend, Tx } from '../stores/backend.js';

/** Bounds one transaction (and so how long it holds the database); the rest go in the next. */
const MAX_ITEMS_PER_TRANSACTION = 200;

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

type Settled<R> = { ok: true; value: R } | { ok: false; error: AppError };

export class Gathered<I, R> {
  private waiting: Waiting<I, R>[] = [];

  constructor(
    private readonly backend: Pick<Backend, 'transaction'>,
    private readonly one: (tx: Tx, item: I) => Promise<R>,
    private readonly order?: (a: I, b: I) => number,
  ) {}

  run(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length === 1) setImmediate(() => void this.runWaiting());
    });
  }

  private async runWaiting(): Promise<void> {
    const batch = this.waiting.splice(0, MAX_ITEMS_PER_TRANSACTION);
    if (this.waiting.length > 0) setImmediate(() => void this.runWaiting());
    const order = this.order;
    const ordered = order ? [...batch].sort((a, b) => order(a.item, b.item)) : batch;
    const settled = new Map<Waiting<I, R>, Settled<R>>();
    try {
      await this.backend.transaction(async (tx) => {
        settled.clear(); // a transaction retried after a deadlock starts over
        for (const w of ordered) settled.set(w, await this.settle(tx, w.item));
      });
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const w of batch) this.backend.transaction((tx) => this.one(tx, w.item)).then(w.resolve, w.reject);
      return;
    }
    for (const w of batch) {
      const s = settled.get(w)!;
      if (s.ok) w.resolve(s.value);
      else w.reject(s.error);
    }
  }

  private async settle(tx: Tx, item: I): Promise<Settled<R>> {
    try {
      return { ok: true, value: await this.one(tx, item) };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, error: err };
      throw err;
    }
  }
}
