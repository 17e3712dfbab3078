// The caller's `headers` on the requests to the target's origin only (headersScope "origin").
//
// Not page.route + continue({headers}): Playwright re-applies a continued request's header overrides
// to every redirect hop it follows (measured with 1.65, and playwright#32939), so a same-origin
// request answered by a 302 to another host would carry them there. Chromium's own Fetch domain
// pauses each hop as a request of its own and its overrides end with the hop, so the intercept is
// asked only for the target's origin and each hop is judged by its own URL.
import type { MediaType } from '../../domain/render-spec.js';
import type { BrowserContext, CDPSession, Page } from 'playwright';

/** The session of each page that has one: wiped with the page (see detachOriginHeaders). */
const sessions = new WeakMap<Page, CDPSession>();

interface PausedRequest {
  requestId: string;
  request: { url: string; headers: Record<string, string> };
}

/**
 * From now until detachOriginHeaders, requests to `origin` (scheme://host:port) carry `headers`;
 * every other request, a cross-origin redirect hop included, goes out untouched.
 */
export async function attachOriginHeaders(
  page: Page,
  context: BrowserContext,
  origin: string,
  headers: Record<string, string>,
  media: MediaType,
): Promise<void> {
  await detachOriginHeaders(page);
  const cdp = await context.newCDPSession(page);
  sessions.set(page, cdp);
  cdp.on('Fetch.requestPaused', (event: PausedRequest) => {
    const ours = originOf(event.request.url) === origin;
    const { requestId } = event;
    cdp
      .send('Fetch.continueRequest', { requestId, ...(ours && { headers: merged(event.request.headers, headers) }) })
      // Refused (a header Chromium will not send, such as Host): fail the request rather than leave
      // it paused until the render times out. Otherwise the page closed or the request was canceled.
      .catch(() => cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }))
      .catch(() => undefined);
  });
  // A pattern only for the origin, so no other request waits on a round trip to us. The origin has
  // no '*' or '?' (URL serialisation escapes neither in a host, but a host cannot hold them).
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${origin}/*`, requestStage: 'Request' }] });
  // Chromium drops the page's emulated media type on the next navigation while another CDP session
  // is attached (measured; colour scheme and motion survive): set it again through this one.
  await cdp.send('Emulation.setEmulatedMedia', { media });
}

/** Ends the interception (requests then go out without the headers). Safe to call on any page. */
export async function detachOriginHeaders(page: Page): Promise<void> {
  const cdp = sessions.get(page);
  if (!cdp) return;
  sessions.delete(page);
  await cdp.detach().catch(() => undefined); // detaching disables Fetch and releases paused requests
}

/** The origin the caller's secrets belong to: the url's, or baseUrl's for html (none without it). */
export function targetOrigin(req: { url?: string; baseUrl?: string }): string | undefined {
  const target = req.url ?? req.baseUrl;
  return target === undefined ? undefined : originOf(target);
}

export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The request's own headers with the caller's on top (names compared case-insensitively). */
function merged(own: Record<string, string>, extra: Record<string, string>): { name: string; value: string }[] {
  const overridden = new Set(Object.keys(extra).map((name) => name.toLowerCase()));
  return [
    ...Object.entries(own)
      .filter(([name]) => !overridden.has(name.toLowerCase()))
      .map(([name, value]) => ({ name, value })),
    ...Object.entries(extra).map(([name, value]) => ({ name, value })),
  ];
}
