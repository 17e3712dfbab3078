// One webhook POST. The target obeys the same egress policy as the browser, checked at send time;
// the connection goes to exactly the address that was checked (a custom `lookup` pins it, which
// keeps TLS verifying the real hostname). Redirects are not followed: a 3xx is a failed attempt.
import http from 'node:http';
import https from 'node:https';
import type { EgressPolicy } from '../egress/policy.js';
import { pinnedLookup } from '../egress/pinned-lookup.js';

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
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: {
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Pagewatch-Webhooks/1',
        },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => {
          const status = res.statusCode ?? 0;
          resolve(done({ ok: status >= 200 && status < 300, status, gone: status === 410 }));
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
