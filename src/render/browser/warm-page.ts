// A page kept open between renders, because creating one costs ~300 ms (a renderer process) while
// a render itself takes ~50–90 ms. Between renders every trace of the previous one is wiped.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright';
import { hasUserinfo } from '../../domain/urls.js';
import { holdPermissions } from './permissions.js';
import { detachOriginHeaders } from './origin-headers.js';

export const BASE_CONTEXT_OPTIONS: BrowserContextOptions = {
  viewport: { width: 1280, height: 800 },
  acceptDownloads: false,
  // A service worker would outlive the render that installed it and serve the next one: block them.
  serviceWorkers: 'block',
};

/** Page-level hygiene for any render page: dialogs dismissed, popups closed, downloads refused. */
export function guardPage(page: Page): void {
  page.on('dialog', (d) => {
    d.dismiss().catch(() => undefined);
  });
  page.on('popup', (p) => {
    p.close().catch(() => undefined);
  });
  page.on('download', (d) => {
    d.cancel().catch(() => undefined);
  });
}

/** Contexts a render gave `cookies` to: their cookie jar has something in it without any request. */
export const cookiesGiven = new WeakSet<BrowserContext>();

/**
 * Response headers that leave state in the browser context which no CDP call clears: HSTS (later
 * http:// requests to that host go to https), and Network Error Logging with its report endpoints
 * (later failures to that host are reported to a URL of the page's choosing). Alt-Svc is kept too, but
 * names only QUIC alternatives, and QUIC is off (launch.ts): it changes nothing for the next render.
 */
const CONTEXT_STATE_HEADERS = ['strict-transport-security', 'nel', 'report-to'] as const;

export class WarmPage {
  uses = 0;
  /**
   * Aborts when the page's renderer process ends (killed, out of memory), whether the page is idle, in a
   * render or being wiped: such a page is never handed out again.
   */
  readonly crash = new AbortController();
  /** Origins this page has touched since its last wipe: their storage is cleared. */
  private readonly origins = new Set<string>();
  /**
   * Something happened since the last wipe that reached beyond the document: a request (of the page or
   * a frame), a frame, a worker, a popup, a dialog or a download. Without one, nothing entered the HTTP
   * cache or the cookie jar (but a render's own `cookies`), and the wipe skips those.
   */
  private touched = false;
  /**
   * Why this page's context can no longer be wiped clean, or undefined while it can. Chromium keeps
   * HTTP authentication (credentials in a URL, XHR's user and password), HSTS and NEL per
   * context, with no call to clear them: such a context is closed and a new one takes its place.
   */
  private unwipeable: string | undefined;

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    onCrash: (page: WarmPage) => void,
  ) {
    page.once('crash', () => {
      this.crash.abort(new Error('page crashed'));
      onCrash(this);
    });
    const note = (url: string) => {
      if (url.startsWith('http:') || url.startsWith('https:')) this.origins.add(new URL(url).origin);
    };
    const touch = () => {
      this.touched = true;
    };
    page.on('request', (r) => {
      touch();
      note(r.url());
    });
    page.on('framenavigated', (f) => note(f.url()));
    for (const event of ['frameattached', 'worker', 'popup', 'dialog', 'download', 'websocket'] as const)
      page.on(event as 'worker', touch);
    // The context's events, not the page's: they include every worker's requests too.
    context.on('request', (r) => {
      if (r.url().includes('@') && hasUserinfo(r.url())) this.unwipeable ??= 'a request carried credentials in its URL';
    });
    context.on('response', (r) => {
      if (!r.url().startsWith('https:')) return; // these headers count over https only
      const headers = r.headers();
      const kept = CONTEXT_STATE_HEADERS.find((name) => headers[name] !== undefined);
      if (kept) this.unwipeable ??= `a response set ${kept}`;
    });
  }

  /** Why the context must be replaced rather than wiped (see `unwipeable`); undefined if it can be wiped. */
  get keepsState(): string | undefined {
    return this.unwipeable;
  }

  /** Whether the renderer has crashed (known from the page's `crash` event: free to ask). */
  get crashed(): boolean {
    return this.crash.signal.aborted;
  }

  /** `onCrash`: told when the page's renderer ends, at any time in the page's life. */
  static async create(browser: Browser, onCrash: (page: WarmPage) => void = () => undefined): Promise<WarmPage> {
    const context = await browser.newContext(BASE_CONTEXT_OPTIONS);
    try {
      const page = await context.newPage();
      guardPage(page);
      await holdPermissions(browser, context, page);
      return new WarmPage(context, page, onCrash);
    } catch (err) {
      await context.close().catch(() => undefined);
      throw new Error('create warm page', { cause: err });
    }
  }

  /**
   * Leave nothing for the next render: unload the document first (so no script of it can write again,
   * and the next render gets a new Document and global object: its own style-sheet set, performance
   * timeline, focus, selection and scroll position), then cookies, per-origin storage (local, session,
   * IndexedDB, cache storage), HTTP cache, history, routes and headers (both kinds). Emulation (viewport,
   * media) is set afresh by every render; permissions are held at "prompt" for good (permissions.ts).
   */
  async wipe(): Promise<void> {
    // The origin-scoped headers' interception ends alongside the rest (~25 ms; the wipe itself makes
    // no request to that origin). It never rejects, and is awaited before the page is handed out.
    const detached = detachOriginHeaders(this.page);
    // A CDP session only for the wipe: one left attached makes Chromium drop the emulated media
    // type on the next navigation.
    const cdp = await this.context.newCDPSession(this.page);
    try {
      // Unload first: the old document and its timers must be gone before anything is cleared.
      // (A raw CDP Page.navigate returns sooner but before the new document exists; measured, the
      // document costs ~25 ms whichever way one waits for it.)
      await this.page.goto('about:blank', { timeout: 5000 });
      // window.name survives navigations within a tab; it must not carry anything to the next render.
      await this.page.evaluate(() => {
        window.name = '';
      });
      // Only now, with the old document gone, is the set of touched origins final: a script of it
      // could still reach a new origin until the moment it was unloaded.
      const origins = [...this.origins];
      this.origins.clear();
      // Without a request (of the page, a frame or a worker: `touched`) nothing entered the HTTP cache or
      // the cookie jar (but for a render's own `cookies`). Permissions need no clearing: they are held at
      // "prompt" for the context's life (permissions.ts), and resetting them would drop that hold.
      const reachedNetwork = origins.length > 0 || this.touched;
      const cookies = cookiesGiven.delete(this.context) || reachedNetwork;
      this.touched = false;
      await Promise.all([
        detached,
        cookies && this.context.clearCookies(),
        this.page.unrouteAll({ behavior: 'ignoreErrors' }),
        this.page.setExtraHTTPHeaders({}),
        reachedNetwork && cdp.send('Network.clearBrowserCache'),
        cdp.send('Page.resetNavigationHistory'),
        // 'all' covers cookies, local and session storage, IndexedDB, cache storage, service workers.
        ...origins.map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
      ]);
    } finally {
      await cdp.detach().catch(() => undefined);
    }
    // A renderer that ended during the wipe may have failed a call above, or may not have (the crash event
    // can come after the call it broke): either way the page is not handed out.
    if (this.crashed) throw new Error('the page crashed during its wipe');
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
  }
}
