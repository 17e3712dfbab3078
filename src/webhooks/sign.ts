// Standard Webhooks signatures (https://www.standardwebhooks.com): HMAC-SHA256 over
// `${id}.${timestamp}.${body}`, keyed with the base64 bytes after `whsec_`, sent as `v1,<base64>`.
import { createHmac, randomUUID } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  'content-type': 'application/json';
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers for one delivery attempt. `id` stays the same across retries of one event (receivers
 * de-duplicate on it); the timestamp is the attempt's. During a secret rotation every current secret
 * signs, space-separated, as the specification allows.
 */
export function signedHeaders(secrets: readonly string[], id: string, body: string, now = new Date()): SignedHeaders {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' '),
  };
}

export function newMessageId(): string {
  return `msg_${randomUUID().replace(/-/g, '')}`;
}
