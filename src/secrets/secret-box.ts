// Encrypts short secrets (header values, passwords) for storage: AES-256-GCM with a random 96-bit IV
// per value, so equal secrets never look equal at rest, and the auth tag makes any altered byte an
// error instead of a garbled secret. A value reads "enc:v1:<keyId>:<iv>:<ciphertext>:<tag>" (base64url);
// the key id says which key sealed it, so a wrong key is told apart from tampering.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_KEY_BYTES = 32;

export type SecretBoxFailure = 'malformed' | 'wrong_key' | 'tampered';

export class SecretBoxError extends Error {
  constructor(
    readonly reason: SecretBoxFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Whether a stored value is sealed (rather than plaintext written before encryption existed). */
export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** A 32-byte key from 64 hex digits or 44 base64 characters (the forms `secrets.key` accepts). */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : /^[A-Za-z0-9+/]{43}=$/.test(trimmed)
      ? Buffer.from(trimmed, 'base64')
      : undefined;
  if (key?.length !== SECRET_KEY_BYTES)
    throw new Error('a secrets key must be 32 bytes: 64 hex digits or 44 base64 characters');
  return key;
}

export class SecretBox {
  private readonly key: Buffer;
  /** Not secret: an HMAC of the key, so it says nothing about the key itself. */
  readonly keyId: string;

  constructor(key: Buffer) {
    if (key.length !== SECRET_KEY_BYTES)
      throw new Error(`a secrets key must be ${SECRET_KEY_BYTES} bytes, got ${key.length}`);
    this.key = Buffer.from(key);
    this.keyId = createHmac('sha256', this.key).update('pagewatch secret key id').digest('hex').slice(0, 8);
  }

  /**
   * `context` (e.g. the monitor's id) is authenticated with the value, so a sealed value copied into
   * another record does not open there.
   */
  encrypt(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.keyId}:${[iv, data, cipher.getAuthTag()].map((b) => b.toString('base64url')).join(':')}`;
  }

  decrypt(sealed: string, context = ''): string {
    const parts = isSealed(sealed) ? sealed.slice(PREFIX.length).split(':') : [];
    const [keyId, iv, data, tag] = parts.map((p, i) => (i === 0 ? p : Buffer.from(p, 'base64url'))) as [
      string,
      Buffer,
      Buffer,
      Buffer,
    ];
    if (parts.length !== 4 || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new SecretBoxError('malformed', 'not a value sealed by this service (expected "enc:v1:…")');
    }
    if (keyId !== this.keyId) {
      throw new SecretBoxError(
        'wrong_key',
        `sealed with another key (key id ${keyId}; the current key's id is ${this.keyId})`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        'tampered',
        'the sealed value was altered or belongs to another record (authentication failed)',
      );
    }
  }

  /**
   * A stable stand-in for a secret where equal values must compare equal (an Idempotency-Key's request
   * hash) without the value itself: an HMAC under the key, so it cannot be guessed offline without it.
   */
  fingerprint(plaintext: string): string {
    return createHmac('sha256', this.key)
      .update('pagewatch secret fingerprint\n')
      .update(plaintext)
      .digest('base64url');
  }
}
