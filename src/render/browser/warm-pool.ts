// The warm pages of one browser. At most `size` exist at a time (idle, in use, or being wiped), so
// memory stays bounded; a render that finds none idle waits for one coming back from its wipe,
// which costs far less than creating a page.
import type { Browser } from 'playwright';
import type { Logger } from '../../log.js';
import { WarmPage } from './warm-page.js';

interface Waiter {
  resolve: (page: WarmPage) => void;
  reject: (err: unknown) => void;
}

export class WarmPool {
  private alive = 0;
  private created = 0;
  private unloads = 0;
  private closed = false;
  private readonly idle: WarmPage[] = [];
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly browser: Browser,
    private readonly size: number,
    private readonly maxUses: number,
    private readonly log: Logger,
  ) {}

  get idleCount(): number {
    return this.idle.length;
  }
  get createdCount(): number {
    return this.created;
  }
  get unloadCount(): number {
    return this.unloads;
  }

  /** Create pages ahead of demand, one at a time, up to the pool's size. */
  async fill(): Promise<void> {
    while (!this.closed && this.alive < this.size) {
      const page = await this.create();
      this.give(page);
    }
  }

  async take(): Promise<WarmPage> {
    const page = this.idle.pop();
    if (page) return page;
    if (this.alive < this.size) return this.create();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * A page back from a render. Reusable ones are wiped (after the response has gone, so the client
   * does not wait for it) and handed on; others, and those whose context holds what no wipe clears
   * (WarmPage.keepsState), are closed and replaced.
   */
  release(page: WarmPage, reusable: boolean): void {
    page.uses++;
    const keptState = page.keepsState;
    if (keptState) this.log.debug({ reason: keptState }, 'warm page replaced: its context keeps state');
    const keep = reusable && !keptState && !this.closed && page.uses < this.maxUses;
    const next = keep
      ? page.wipe().then(() => {
          this.unloads++;
          return page;
        })
      : Promise.reject(new Error('not reusable'));
    next.then(
      (p) => this.give(p),
      (err) => {
        if (keep) this.log.debug({ err }, 'warm page discarded after a failed wipe');
        this.alive--;
        void page.close();
        if (!this.closed) this.fill().catch((e) => this.failWaiters(e));
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failWaiters(new Error('browser closed'));
    await Promise.all(this.idle.splice(0).map((p) => p.close()));
  }

  private async create(): Promise<WarmPage> {
    this.alive++;
    try {
      const page = await WarmPage.create(this.browser);
      this.created++;
      return page;
    } catch (err) {
      this.alive--;
      throw err;
    }
  }

  private give(page: WarmPage): void {
    if (this.closed) {
      this.alive--;
      void page.close();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(page);
    else this.idle.push(page);
  }

  private failWaiters(err: unknown): void {
    for (const w of this.waiters.splice(0)) w.reject(err);
  }
}
