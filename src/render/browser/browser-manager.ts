// One long-lived Chromium, recycled after `restartAfter` renders and relaunched after a crash.
// Renders lease a page: a warm reusable one (wiped after use), or — when the render needs options a
// reused page cannot take (user agent, locale, device...) — a single-use context of its own.
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright';
import type { Lifecycle } from '../../lifecycle.js';
import type { Logger } from '../../log.js';
import { unavailable } from '../../errors.js';
import { abortable } from '../abortable.js';
import { launchChromium, killProcessGroup, type LaunchedBrowser } from './launch.js';
import { rendererAlive } from './renderer-alive.js';
import { explainSandboxFailure } from './sandbox.js';
import { BASE_CONTEXT_OPTIONS, guardPage } from './warm-page.js';
import { WarmPool } from './warm-pool.js';

export interface BrowserManagerOptions {
  executablePath: string | undefined;
  /** The egress proxy every browser connection goes through; read at each launch (it listens once started). */
  proxyUrl: () => string;
  /** Launch with Chromium's sandbox (decided by `render.sandbox`, see sandbox.ts). */
  sandbox: boolean;
  warmPages: number;
  restartAfter: number;
  pageMaxUses: number;
  log: Logger;
  /** Chromium's environment, read at each launch (font-setup.ts: the fontconfig file of fonts.dir). */
  env?: () => NodeJS.ProcessEnv;
}

/** Whether a browser is up; when none can start for a reason an operator can fix, that reason. */
export interface BrowserReadiness {
  usable: boolean;
  reason?: string;
}

export interface BrowserStats {
  up: boolean;
  version?: string;
  pid?: number;
  renders: number;
  restarts: number;
  /** Warm pages idle now, and created by the current browser so far (reuse keeps the latter flat). */
  warmPages: number;
  pagesCreated: number;
  /** Warm pages unloaded and wiped between renders by the current browser. */
  pagesUnloaded: number;
}

export class BrowserManager implements Lifecycle {
  readonly name = 'browser';
  private current: Generation | undefined;
  private launching: Promise<Generation> | undefined;
  private restarts = 0;
  private totalRenders = 0;
  private stopped = false;
  /** Every browser whose processes may still be talking to the egress proxy (current and retiring). */
  private readonly live = new Set<Generation>();
  /** Why the last launch failed, when it is something the operator can fix (the sandbox). */
  private launchFailure: string | undefined;
  private recycleQueued = false;

  constructor(private readonly opts: BrowserManagerOptions) {}

  /**
   * Launches the browser. One that cannot start does not stop the service: it is logged, /ready says
   * 503, renders answer 503, and each new render tries to launch again.
   */
  async start(): Promise<void> {
    await this.generation().catch((err: unknown) =>
      this.opts.log.error({ err, executablePath: this.opts.executablePath }, 'browser could not be started'),
    );
  }

  /** At once: renders still in flight at this point have been given up on. */
  async stop(_deadline?: number): Promise<void> {
    this.stopped = true;
    const gen = this.current ?? (await this.launching?.catch(() => undefined));
    this.current = undefined;
    await gen?.close();
  }

  stats(): BrowserStats {
    const gen = this.current;
    return {
      up: Boolean(gen?.connected),
      version: gen?.chromium.version,
      pid: gen?.chromium.pid,
      renders: this.totalRenders,
      restarts: this.restarts,
      warmPages: gen?.pool.idleCount ?? 0,
      pagesCreated: gen?.pool.createdCount ?? 0,
      pagesUnloaded: gen?.pool.unloadCount ?? 0,
    };
  }

  /** Whether a browser is up, launching one if none is; if none can start, why (when there is a reason to tell). */
  async readiness(): Promise<BrowserReadiness> {
    try {
      return { usable: (await this.generation()).connected };
    } catch {
      return { usable: false, ...(this.launchFailure && { reason: this.launchFailure }) };
    }
  }

  /**
   * The main process of every browser still alive. Chromium's network service, which opens the
   * connections to the egress proxy, is among its children (see egress/socket-owner.ts).
   */
  browserPids(): number[] {
    return [...this.live].flatMap(({ chromium: { pid } }) => (pid ? [pid] : []));
  }

  async lease(contextOptions: BrowserContextOptions | undefined): Promise<Lease> {
    const gen = await this.generation();
    gen.inFlight++;
    gen.renders++;
    this.totalRenders++;
    // Recycle: launch the successor now and keep serving from this browser until it is ready.
    if (gen.renders >= this.opts.restartAfter && !this.stopped) this.launchInBackground();
    try {
      // Creating a page on a browser that has just died can hang rather than fail: race the death.
      const lease = contextOptions ? this.singleUse(gen, contextOptions) : this.warm(gen);
      // If it settles after all, the browser is dead: closing the context is all there is to do.
      return await abortable(lease, gen.disconnected.signal, (l) => {
        l.context.close().catch(() => undefined);
      });
    } catch (err) {
      this.done(gen);
      if (gen.disconnected.signal.aborted)
        throw unavailable('the browser stopped while a page was being prepared; try again', err);
      throw err;
    }
  }

  private async warm(gen: Generation): Promise<Lease> {
    const wp = await gen.pool.take();
    const watch = watchLoss(gen, wp.page);
    return {
      page: wp.page,
      context: wp.context,
      lost: watch.signal,
      browserConnected: () => gen.connected,
      rendererAlive: (withinMs) => rendererAlive(wp.page, watch.signal, withinMs),
      release: (reusable) => {
        watch.dispose();
        gen.pool.release(wp, reusable && !gen.retired && gen.connected);
        this.done(gen);
      },
    };
  }

  private async singleUse(gen: Generation, options: BrowserContextOptions): Promise<Lease> {
    const context = await gen.chromium.browser.newContext({ ...BASE_CONTEXT_OPTIONS, ...options });
    try {
      const page = await context.newPage();
      guardPage(page);
      const watch = watchLoss(gen, page);
      return {
        page,
        context,
        lost: watch.signal,
        browserConnected: () => gen.connected,
        rendererAlive: (withinMs) => rendererAlive(page, watch.signal, withinMs),
        release: () => {
          watch.dispose();
          this.done(gen);
          context.close().catch(() => undefined);
        },
      };
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
  }

  private done(gen: Generation): void {
    gen.inFlight--;
    if (gen.retired && gen.inFlight === 0) {
      gen.close().catch((err) => this.opts.log.warn({ err }, 'closing retired browser failed'));
    }
  }

  private async generation(): Promise<Generation> {
    if (this.stopped) throw new Error('browser manager stopped');
    const gen = this.current;
    if (gen?.connected) return gen;
    if (gen) this.retire(gen, 'crash');
    return (this.launching ??= this.launch());
  }

  /**
   * Launch a successor now (e.g. the fonts changed, and Chromium reads them only at launch): renders in
   * flight finish on the current browser, which closes after them; new ones go to the successor once it is up.
   * Asked while a launch is under way, one more follows it, since that launch may have read the old fonts.
   */
  recycle(): void {
    if (this.stopped || (!this.current && !this.launching)) return;
    if (!this.launching) return this.launchInBackground();
    if (this.recycleQueued) return;
    this.recycleQueued = true;
    void this.launching
      .catch(() => undefined)
      .then(() => {
        this.recycleQueued = false;
        this.recycle();
      });
  }

  private launchInBackground(): void {
    (this.launching ??= this.launch()).catch((err) => this.opts.log.error({ err }, 'browser relaunch failed'));
  }

  /**
   * Retire a generation: renders in flight on it finish normally (or, after a crash, fail) and it
   * closes when the last one is done; new renders go to its successor.
   */
  private retire(gen: Generation, reason: 'recycle' | 'crash'): void {
    if (gen.retired) return;
    gen.retired = true;
    if (this.current === gen) this.current = undefined;
    this.restarts++;
    this.opts.log.info({ reason, renders: gen.renders, pid: gen.chromium.pid }, 'browser retired');
    if (reason === 'crash' || gen.inFlight === 0) gen.close().catch(() => undefined);
  }

  private async launch(): Promise<Generation> {
    try {
      if (!this.opts.executablePath) {
        throw unavailable('no Chromium found: set PAGEWATCH_CHROMIUM_PATH or run `npm install` (which installs one)');
      }
      // A browser that will not start is the service being unavailable (503), not a bad page.
      const { executablePath, sandbox } = this.opts;
      const proxyUrl = this.opts.proxyUrl();
      const env = this.opts.env?.();
      const chromium = await launchChromium({ executablePath, proxyUrl, sandbox, env }).catch((err: unknown) => {
        throw this.launchFailed(err);
      });
      const { browser, pid, version } = chromium;
      this.launchFailure = undefined;
      const pool = new WarmPool(browser, this.opts.warmPages, this.opts.pageMaxUses, this.opts.log);
      const gen = new Generation(chromium, pool, () => this.live.delete(gen));
      this.live.add(gen);
      browser.on('disconnected', () => {
        // A crash or kill: reap the whole process group now; the next lease launches a new browser.
        gen.disconnected.abort(new Error('browser disconnected'));
        killProcessGroup(pid);
        this.retire(gen, 'crash');
      });
      if (this.stopped) {
        await gen.close();
        throw new Error('browser manager stopped');
      }
      const previous = this.current;
      this.current = gen;
      if (previous) this.retire(previous, 'recycle');
      pool.fill().catch((err) => this.opts.log.warn({ err }, 'warm page creation failed'));
      this.opts.log.info({ pid, version, sandbox }, 'browser launched');
      return gen;
    } finally {
      this.launching = undefined;
    }
  }

  /**
   * A failed launch: a 503 for the render that asked; if the sandbox failed, the reason and fix for /ready and the log.
   */
  private launchFailed(err: unknown): Error {
    const reason = this.opts.sandbox
      ? explainSandboxFailure(String((err as Error)?.message ?? err), process.geteuid?.())
      : undefined;
    if (reason && reason !== this.launchFailure) this.opts.log.error({ sandbox: true }, reason);
    this.launchFailure = reason;
    return unavailable('the browser could not be started', err);
  }
}

// --- one generation: a launched Chromium and the leases of its pages -------------------------------
// What a lease is, and how it notices that its browser died or its page crashed. The manager above decides
// when generations launch, recycle and retire.

export interface Lease {
  page: Page;
  context: BrowserContext;
  /** Hand the page back. `reusable: false` after a timeout, abort or crash: the page is thrown away. */
  release(reusable: boolean): void;
  browserConnected(): boolean;
  /**
   * Whether the page's renderer still answers (renderer-alive.ts): true; false once it crashed (or the
   * browser died); undefined if it said nothing within `withinMs`.
   */
  rendererAlive(withinMs: number): Promise<boolean | undefined>;
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
