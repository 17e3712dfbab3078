// API keys: who may call the service, and the secrets that sign their webhooks. The plaintext key is
// never stored (only its hash): it is shown once, when the key is created.

export interface ApiKeyRecord {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** A key as created: the only time the plaintext key is known. */
export interface IssuedKey {
  id: string;
  name: string;
  key: string;
  webhookSecret: string;
}

export interface ApiKeyStore {
  create(name: string): Promise<IssuedKey>;
  /** The active (not revoked) key with this plaintext, if any. */
  findActive(key: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this id, revoked or not. */
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** Every key, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** True if the key was active and is now revoked. */
  revoke(id: string, now?: Date): Promise<boolean>;
  touch(id: string, when?: Date): Promise<void>;
  /**
   * The secrets that sign this key's webhooks now: the current one, and during the grace period after
   * a rotation the previous one too (receivers that have not switched yet keep verifying). Empty for
   * an unknown key.
   */
  signingSecrets(id: string, now?: Date): Promise<string[]>;
  /** A new signing secret for an active key (undefined otherwise); the old one keeps signing for `graceMs`. */
  rotateSecret(id: string, graceMs: number, now?: Date): Promise<string | undefined>;
}
