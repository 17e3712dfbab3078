// How API keys and their webhook secrets are made and hashed: the store keeps only the hash and the prefix.
import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'pw_live_';

/** A new API key: 24 random bytes, URL-safe. */
export function newApiKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

export function newKeyId(): string {
  return 'key_' + randomBytes(8).toString('hex');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
