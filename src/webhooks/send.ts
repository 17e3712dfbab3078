// One webhook POST (and, through sendRequest, one channel message). The target obeys the same egress
// policy as the browser, checked at send time; the connection goes to exactly the address that was
// checked (a custom `lookup` pins it, which keeps TLS verifying the real hostname). Redirects are not
// followed: a 3xx is a failed attempt.
import http from 'node:http';
import https from 'node:https';
import type { EgressPolicy } from '../egress/policy.js';
import { pinnedLookup } from '../egress/pinned-lookup.js';
import { traceHeaders } from '../tracing/spans.js';

export interface SendResult {
  ok: boolean;
  status?: number;
  /** 410 Gone: the receiver asks for no more deliveries to this URL. */
  gone: boolean;
  /** Refused by the egress policy; nothing was sent. */
  blocked: boolean;
  error?: string;
  durationMs: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024; // only the status matters; a huge body must not cost memory

export async function sendWebhook(
  policy: EgressPolicy,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs = 15_000,
): Promise<SendResult> {
  return sendRequest(policy, url, { headers, body, timeoutMs, userAgent: 'Pagewatch-Webhooks/1' });
}

export interface OutgoingRequest {
  /** POST unless said. */
  method?: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: string | Buffer;
  timeoutMs?: number;
  userAgent?: string;
  /** Put the start of a non-2xx answer's body in `error` (chat services say what they refused). */
  describeRefusal?: boolean;
}

/** How much of a refusing answer's body `error` quotes. */
const REFUSAL_QUOTE = 300;

/** One request to `url` under the egress policy, pinned to the checked address. */
export async function sendRequest(policy: EgressPolicy, url: string, request: OutgoingRequest): Promise<SendResult> {
  const { body, timeoutMs = 15_000 } = request;
  const started = performance.now();
  const done = (r: Omit<SendResult, 'durationMs' | 'gone' | 'blocked'> & Partial<SendResult>): SendResult => ({
    gone: false,
    blocked: false,
    ...r,
    durationMs: Math.round(performance.now() - started),
  });

  const verdict = await policy.checkUrl(url);
  if (!verdict.allowed) return done({ ok: false, blocked: !verdict.unresolvable, error: verdict.reason });

  const pinned = pinnedLookup(verdict);
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;

  return new Promise<SendResult>((resolve) => {
    const req = client.request(
      target,
      {
        method: request.method ?? 'POST',
        lookup: pinned,
        agent: false,
        headers: {
          ...request.headers,
          // The delivery's trace, for a receiver that traces too; not signed (the signature covers id, time, body).
          ...traceHeaders(),
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': request.userAgent ?? 'Pagewatch/1',
        },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        let received = 0;
        const quoted: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          if (received < REFUSAL_QUOTE) quoted.push(chunk);
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const said = Buffer.concat(quoted).toString('utf8').slice(0, REFUSAL_QUOTE).trim();
          const refusal = !ok && request.describeRefusal ? `HTTP ${status}${said ? `: ${said}` : ''}` : undefined;
          resolve(done({ ok, status, gone: status === 410, ...(refusal && { error: refusal }) }));
        });
      },
    );
    req.on('error', (err) => {
      const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError';
      resolve(done({ ok: false, error: timedOut ? `no answer within ${timeoutMs} ms` : err.message }));
    });
    req.end(body);
  });
}
