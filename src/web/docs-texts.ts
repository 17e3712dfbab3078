// The fixed texts of the docs page: the webhook verification snippets (docs/webhooks.md's, word for word)
// and the error table.
import type { ErrorCode } from '../errors.js';

// The two verification examples of docs/webhooks.md ("Verifying in Node"), as text.
export const VERIFY_STANDARDWEBHOOKS = `import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const wh = new Webhook(process.env.PAGEWATCH_WEBHOOK_SECRET); // "whsec_…"
http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    try {
      // Checks the signature (any of the space-separated ones) and that the timestamp is within 5 minutes.
      const event = wh.verify(body, req.headers);
      console.log(event.type, event.data.monitorId ?? event.data.jobId); // the examples above show each data
      res.writeHead(204).end();
    } catch {
      res.writeHead(400).end(); // wrong secret, tampered body or replayed/old timestamp
    }
  });
}).listen(8080);`;

export const VERIFY_CRYPTO = `import { createHmac, timingSafeEqual } from 'node:crypto';

function verify(secret, headers, body) {
  const id = headers['webhook-id'], ts = headers['webhook-timestamp'];
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false; // refuse replays
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(\`\${id}.\${ts}.\${body}\`).digest('base64'));
  return headers['webhook-signature'].split(' ').some((sig) => {
    const given = Buffer.from(sig.split(',')[1] ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}`;

/** The error table in the docs' words: codes of one status together (the status comes from errors.ts). */
export const ERRORS: [ErrorCode[], string][] = [
  [
    ['invalid_request'],
    'the body or query failed validation; details lists {path, message} per field, each message one sentence that names the field, its limit and what to do',
  ],
  [['unauthorized'], 'missing, unknown or revoked key where one is required'],
  [['url_blocked'], 'the target URL (or a redirect hop) is refused by the egress policy'],
  [['not_found'], "unknown route or id, or another key's resource"],
  [['conflict'], 'same Idempotency-Key with another body, cancel of a finished job, too many monitors'],
  [['gone'], 'an async result past jobs.resultTtlHours'],
  [
    ['payload_too_large'],
    'the body is over the limit (in MiB); without a key the message also names the larger limit a key gives',
  ],
  [['unsupported_media_type'], 'the body is not application/json (or text/html for the render shortcut)'],
  [
    ['render_failed'],
    'the page could not be rendered: HTTP status >= 400 with failOnHttpError, a selector never found, or it could not be loaded — ' +
      'the message says why in words (connection refused, host not found, TLS failure, timed out, too many redirects) and ' +
      'details keeps the raw code (path "url", e.g. net::ERR_CONNECTION_REFUSED)',
  ],
  [['rate_limited', 'queue_full'], 'over the rate limit, or the render queue is full; always with Retry-After'],
  [['internal'], 'a bug; the cause is in the log under the request id'],
  [['unavailable'], 'shutting down, or the browser cannot be started'],
  [
    ['render_timeout'],
    'the render exceeded its timeout; "Timed out: <host> did not send its page…" when the site never answered',
  ],
];
