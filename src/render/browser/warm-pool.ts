// The warm pages of one browser. At most `size` exist at a time (idle, in use, or being wiped), so
// memory stays bounded; a render that finds none idle waits for one coming back from its wipe,
// which costs far less than creating a page. A page whose renderer process ended is never handed out: it
// is dropped and replaced in the background, whether it crashed idle, in a render or during its wipe.
import type { Browser } from 'playwright';
import type { Logger } from '../../log.js';
import { rendererAlive } from './renderer-alive.js';
import { WarmPage } from './warm-page.js';

/**
 * How long a page about to be handed out has to answer. An idle page answers in about a millisecond;
 * one whose renderer has just been killed fails or crashes at once; silence this long means it is stuck.
 */
const TAKE_PROBE_MS = 1000;

interface Waiter {
  resolve: (page: WarmPage) => void;
  reject: (err: unknown) => void;
}

export class WarmPool {
  private alive = 0;
  private created = 0;
  private unloads = 0;
  private crashes = 0;
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
  /** Pages whose renderer ended, replaced (the current browser's). */
  get crashCount(): number {
    return this.crashes;
  }

  /** Create pages ahead of demand, one at a time, up to the pool's size. */
  async fill(): Promise<void> {
    while (!this.closed && this.alive < this.size) {
      const page = await this.create();
      this.give(page);
    }
  }

  /**
   * An idle page whose renderer answers (the crash event may not have arrived yet for one killed a moment
   * ago: it is asked), else a new one, else the next one back from its wipe.
   */
  async take(): Promise<WarmPage> {
    for (let page = this.idle.pop(); page; page = this.idle.pop()) {
      if (await rendererAlive(page.page, page.crash.signal, TAKE_PROBE_MS)) return page;
      this.discard(page, page.crashed ? 'its renderer crashed while idle' : 'its renderer did not answer in time');
    }
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
    if (page.crashed) return this.discard(page, 'its renderer crashed during a render');
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
        this.discard(page, page.crashed ? 'its renderer crashed during its wipe' : undefined);
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failWaiters(new Error('browser closed'));
    await Promise.all(this.idle.splice(0).map((p) => p.close()));
  }

  /** Close a page that will not be handed out, and make another in its place; `why` is logged. */
  private discard(page: WarmPage, why: string | undefined): void {
    if (page.crashed) this.crashes++;
    if (why) this.log.info({ reason: why }, 'warm page replaced');
    this.alive--;
    void page.close();
    if (!this.closed) this.fill().catch((e) => this.failWaiters(e));
  }

  /** An idle page's renderer ended: replace it now, so the pool is full again before anyone asks. */
  private readonly crashedWhileIdle = (page: WarmPage): void => {
    const at = this.idle.indexOf(page);
    if (at < 0) return; // in a render or its wipe: release() or the wipe sees `crashed`
    this.idle.splice(at, 1);
    this.discard(page, 'its renderer crashed while idle');
  };

  private async create(): Promise<WarmPage> {
    this.alive++;
    try {
      const page = await WarmPage.create(this.browser, this.crashedWhileIdle);
      this.created++;
      return page;
    } catch (err) {
      this.alive--;
      throw err;
    }
  }

  private give(page: WarmPage): void {
    if (page.crashed) return this.discard(page, 'its renderer crashed before it was handed out');
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
