// One launched Chromium (a generation of the browser manager) and the leases of its pages: what a lease
// is, and how it notices that its browser died or its page crashed. Apart from browser-manager.ts, which
// decides when generations launch, recycle and retire.
import type { BrowserContext, Page } from 'playwright';
import { killProcessGroup, type LaunchedBrowser } from './launch.js';
import type { WarmPool } from './warm-pool.js';

export interface Lease {
  page: Page;
  context: BrowserContext;
  /** Hand the page back. `reusable: false` after a timeout, abort or crash: the page is thrown away. */
  release(reusable: boolean): void;
  browserConnected(): boolean;
  /**
   * Aborts when the browser dies or the page crashes. Pending Playwright calls do not all reject
   * when that happens (a wait can sit until its own timeout), so renders race against this.
   */
  lost: AbortSignal;
}

export class Generation {
  renders = 0;
  inFlight = 0;
  retired = false;
  readonly disconnected = new AbortController();

  constructor(
    readonly chromium: LaunchedBrowser,
    readonly pool: WarmPool,
    private readonly onGone: () => void,
  ) {}

  get connected(): boolean {
    return this.chromium.browser.isConnected();
  }

  async close(): Promise<void> {
    this.retired = true;
    await this.pool.close();
    await this.chromium.browser.close().catch(() => undefined);
    killProcessGroup(this.chromium.pid);
    this.onGone();
  }
}

export function watchLoss(gen: Generation, page: Page): { signal: AbortSignal; dispose: () => void } {
  const crashed = new AbortController();
  const onCrash = () => crashed.abort(new Error('page crashed'));
  page.once('crash', onCrash);
  return {
    signal: AbortSignal.any([gen.disconnected.signal, crashed.signal]),
    dispose: () => page.off('crash', onCrash),
  };
}
