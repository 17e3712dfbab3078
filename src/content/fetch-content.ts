// The monitor's URL fetched from Node, to learn what it serves and, when it is not an HTML page, to
// read it. The same egress rules as the browser and the webhooks (src/webhooks/send.ts): every hop is
// checked by the policy and the connection goes to exactly the address that was checked (a custom
// `lookup` pins it, which keeps TLS verifying the real hostname). At most MAX_REDIRECTS redirects,
// each checked again; one deadline for the whole fetch, body included; a cap on the bytes kept, counted
// after decompression, so a gzip bomb stops at the cap instead of filling memory.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { EgressPolicy } from '../egress/policy.js';
import { pinnedLookup } from '../egress/pinned-lookup.js';
import type { Cookie } from '../domain/render-spec.js';
import { humanBytes } from '../domain/units.js';
import { originOf } from '../render/browser/origin-headers.js';
import { parseContentType, SNIFF_BYTES, type DeclaredType } from './sniff.js';

export const MAX_REDIRECTS = 5;

/** Headers that describe the connection or the body's framing: Node sets them, a monitor's headers do not. */
const CONNECTION_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** What Chromium sends on a navigation, so a server that negotiates answers Node as it answers the browser. */
const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

export interface ContentRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  /** POST and PUT only; sent to the url's origin only. */
  body?: string;
  bodyContentType?: string;
  /** The monitor's headers, in the clear; to the url's origin only unless headersScope is "all". */
  headers?: Record<string, string>;
  headersScope?: 'origin' | 'all';
  /** Sent where each applies, as a browser would (domain, path, secure). */
  cookies?: Cookie[];
  /** Basic auth, to the url's origin only. */
  httpCredentials?: { username: string; password: string };
  userAgent: string;
}

export interface ContentLimits {
  /** Bytes kept of the body, after decompression. */
  maxBytes: number;
  /** The whole fetch: connection, redirects and body. */
  timeoutMs: number;
}

/**
 * Why the fetch did not produce a response. `blocked`: the egress policy refused a hop. `final`: a limit
 * of this fetch was reached (redirects, time, where the body may go), which the browser must not get
 * round; otherwise the connection failed in a way the browser might not (read-content.ts decides).
 */
export class ContentFetchError extends Error {
  constructor(
    message: string,
    readonly how: { blocked?: boolean; final?: boolean; timedOut?: boolean } = {},
  ) {
    super(message);
    this.name = 'ContentFetchError';
  }
}

/** A response whose first bytes are read; the rest is read on demand, or dropped. */
export interface OpenedContent {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  declared: DeclaredType;
  /** The first bytes of the decoded body (SNIFF_BYTES, fewer if the body is shorter). */
  head: Buffer;
  /** The whole body up to limits.maxBytes; `cut` says so in words when there was more. */
  readAll(): Promise<{ bytes: Buffer; cut?: string }>;
  /** Stop reading and close the connection (an HTML page: the browser reads it). */
  close(): void;
}

export async function openContent(
  policy: EgressPolicy,
  request: ContentRequest,
  limits: ContentLimits,
  signal: AbortSignal,
): Promise<OpenedContent> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const stop = AbortSignal.any([signal, deadline]);
  const timedOut = () => deadline.aborted && !signal.aborted;
  const failure = (err: unknown): Error => {
    if (timedOut())
      return new ContentFetchError(`${request.url} did not answer within ${limits.timeoutMs} ms`, {
        final: true,
        timedOut: true,
      });
    if (err instanceof ContentFetchError || signal.aborted) return err as Error;
    return new ContentFetchError(`fetching ${request.url} failed: ${(err as Error).message}`);
  };
  const home = originOf(request.url);
  let url = request.url;
  let method: string = request.method;
  let body = request.method === 'GET' ? undefined : (request.body ?? undefined);
  try {
    for (let hop = 0; ; hop++) {
      const res = await send(policy, url, method, hopHeaders(request, url, home, method, body), body, stop);
      const location = res.headers.location;
      if (res.statusCode && [301, 302, 303, 307, 308].includes(res.statusCode) && location) {
        res.destroy();
        if (hop === MAX_REDIRECTS)
          throw new ContentFetchError(`${request.url} redirected more than ${MAX_REDIRECTS} times`, { final: true });
        const next = new URL(location, url).href;
        // As browsers do: 303 (and 301/302 after a POST) continue as a GET without the body.
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        // 307/308 repeat the request, body included: the body was given for the monitor's origin only.
        if (body !== undefined && originOf(next) !== home)
          throw new ContentFetchError(
            `${request.url} redirected the ${method} to another origin (${originOf(next) ?? next}); ` +
              `the request body is only sent to ${home}`,
            { final: true },
          );
        url = next;
        continue;
      }
      return await opened(res, url, limits, stop, failure);
    }
  } catch (err) {
    throw failure(err);
  }
}

function send(
  policy: EgressPolicy,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  return policy.checkUrl(url).then((verdict) => {
    if (!verdict.allowed)
      throw new ContentFetchError(`${url} is refused: ${verdict.reason}`, { blocked: !verdict.unresolvable });
    const pinned = pinnedLookup(verdict);
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    return new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = client.request(target, { method, lookup: pinned, agent: false, headers, signal }, resolve);
      req.on('error', reject);
      req.end(body);
    });
  });
}

/** The headers of one hop: the caller's and the secrets only where they were given for. */
function hopHeaders(
  request: ContentRequest,
  url: string,
  home: string | undefined,
  method: string,
  body: string | undefined,
): Record<string, string> {
  const atHome = originOf(url) === home;
  const out: Record<string, string> = {};
  if (request.headers && (atHome || request.headersScope === 'all'))
    for (const [name, value] of Object.entries(request.headers))
      if (!CONNECTION_HEADERS.has(name.toLowerCase())) out[name.toLowerCase()] = value;
  out['user-agent'] ??= request.userAgent;
  out.accept ??= ACCEPT;
  out['accept-encoding'] = 'gzip, deflate, br'; // decoded here, under the cap (the caller's value cannot widen it)
  const cookies = cookieHeader(request.cookies ?? [], url, request.url);
  if (cookies) out.cookie = out.cookie ? `${out.cookie}; ${cookies}` : cookies;
  if (request.httpCredentials && atHome) {
    const { username, password } = request.httpCredentials;
    out.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }
  if (body !== undefined && method !== 'GET') {
    out['content-type'] = request.bodyContentType ?? defaultBodyType(body);
    out['content-length'] = String(Buffer.byteLength(body));
  }
  return out;
}

/** A body's Content-Type when the monitor names none: JSON when it parses as JSON, else plain text. */
export function defaultBodyType(body: string): string {
  try {
    JSON.parse(body); // bounded: the schema caps a body's length
    return 'application/json';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

/**
 * The cookies that apply to `url`, as `name=value; ...`: a cookie with a url applies to that url's host,
 * one with a domain to it and its subdomains, one with neither to the monitor's page (`pageUrl`); its
 * path must be a prefix of the url's path, and a secure cookie goes over https only.
 */
export function cookieHeader(cookies: Cookie[], url: string, pageUrl: string): string {
  const target = new URL(url);
  const host = target.hostname.toLowerCase();
  return cookies
    .filter((c) => {
      let hostOk: boolean;
      let defaultPath = '/';
      if (c.domain) {
        const domain = c.domain.replace(/^\./, '').toLowerCase();
        hostOk = host === domain || host.endsWith(`.${domain}`);
      } else {
        const own = new URL(c.url ?? pageUrl);
        hostOk = own.hostname.toLowerCase() === host;
        if (c.url) defaultPath = own.pathname.replace(/\/[^/]*$/, '') || '/';
      }
      const path = c.path ?? defaultPath;
      const pathOk =
        target.pathname === path ||
        (target.pathname.startsWith(path) && (path.endsWith('/') || target.pathname.charAt(path.length) === '/'));
      return hostOk && pathOk && (!c.secure || target.protocol === 'https:');
    })
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
}

/** The decoded body as a stream: Content-Encoding undone, in the order it was applied. */
function decoded(res: http.IncomingMessage): Readable {
  const codings = (res.headers['content-encoding'] ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  let stream: Readable = res;
  for (const coding of codings.reverse()) {
    const step =
      coding === 'gzip' || coding === 'x-gzip'
        ? zlib.createGunzip()
        : coding === 'br'
          ? zlib.createBrotliDecompress()
          : coding === 'deflate'
            ? zlib.createInflate()
            : undefined;
    if (!step) throw new ContentFetchError(`the response is encoded with "${coding}", which is not supported`);
    const from = stream;
    from.on('error', (err) => step.destroy(err));
    stream = from.pipe(step);
  }
  return stream;
}

async function opened(
  res: http.IncomingMessage,
  url: string,
  limits: ContentLimits,
  signal: AbortSignal,
  failure: (err: unknown) => Error,
): Promise<OpenedContent> {
  let body: Readable;
  try {
    body = decoded(res);
  } catch (err) {
    res.destroy(); // an encoding we cannot undo: nothing of it is read
    throw err;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  let over = false;
  const close = () => {
    res.destroy();
    body.destroy();
  };
  signal.addEventListener('abort', close, { once: true });
  const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  /** Reads until `want` bytes are kept, the cap is passed or the body ends. */
  const readUntil = async (want: number) => {
    try {
      while (!ended && !over && size < want) {
        const next = await iterator.next();
        if (next.done) {
          ended = true;
          break;
        }
        const room = limits.maxBytes - size;
        if (next.value.length > room) {
          over = true; // more than the cap: keep what fits, stop reading (a bomb stops decompressing here)
          if (room > 0) chunks.push(next.value.subarray(0, room));
          size = limits.maxBytes;
          close();
          break;
        }
        chunks.push(next.value);
        size += next.value.length;
      }
      // A body cut short by the deadline or the job's end is no whole body, even if the stream says done.
      if (signal.aborted) throw new Error('aborted');
    } catch (err) {
      close();
      throw failure(err);
    }
  };
  await readUntil(SNIFF_BYTES);
  const head = Buffer.concat(chunks).subarray(0, SNIFF_BYTES);
  return {
    status: res.statusCode ?? 0,
    url,
    declared: parseContentType(res.headers['content-type']),
    head,
    readAll: async () => {
      await readUntil(Infinity);
      signal.removeEventListener('abort', close);
      const bytes = Buffer.concat(chunks);
      return over
        ? { bytes, cut: `only the first ${humanBytes(limits.maxBytes)} were read (monitors.maxContentBytes)` }
        : { bytes };
    },
    close: () => {
      signal.removeEventListener('abort', close);
      close();
    },
  };
}
