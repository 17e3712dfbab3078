import { hashApiKey, KEY_PREFIX, newApiKey, newKeyId, newWebhookSecret } from '../auth/key-material.js';
import type { Db } from './open.js';

export interface ApiKeyRecord {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface IssuedKey {
  id: string;
  name: string;
  key: string;
  webhookSecret: string;
}

interface Row {
  id: string;
  name: string;
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  name: r.name,
  keyPrefix: r.key_prefix,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

/** The api_keys table. Keys themselves are never stored: they are shown once, at creation. */
export class ApiKeyStore {
  private readonly insert;
  private readonly byHash;
  private readonly byId;
  private readonly all;
  private readonly revokeStmt;
  private readonly touchStmt;
  private readonly secretStmt;
  private readonly rotateStmt;

  constructor(db: Db) {
    this.insert = db.prepare(`INSERT INTO api_keys (id, name, key_hash, key_prefix, webhook_secret, created_at)
      VALUES (@id, @name, @keyHash, @keyPrefix, @webhookSecret, @createdAt)`);
    this.byHash = db.prepare(
      'SELECT id, name, key_prefix, created_at, revoked_at, last_used_at FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
    );
    this.byId = db.prepare(
      'SELECT id, name, key_prefix, created_at, revoked_at, last_used_at FROM api_keys WHERE id = ?',
    );
    this.all = db.prepare(
      'SELECT id, name, key_prefix, created_at, revoked_at, last_used_at FROM api_keys ORDER BY created_at, id',
    );
    this.revokeStmt = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.touchStmt = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.secretStmt = db.prepare(
      'SELECT webhook_secret, previous_webhook_secret, previous_secret_expires_at FROM api_keys WHERE id = ?',
    );
    this.rotateStmt =
      db.prepare(`UPDATE api_keys SET previous_webhook_secret = webhook_secret, previous_secret_expires_at = @graceUntil,
      webhook_secret = @secret WHERE id = @id AND revoked_at IS NULL`);
  }

  create(name: string): IssuedKey {
    const issued = { id: newKeyId(), name, key: newApiKey(), webhookSecret: newWebhookSecret() };
    this.insert.run({
      id: issued.id,
      name,
      keyHash: hashApiKey(issued.key),
      keyPrefix: issued.key.slice(0, KEY_PREFIX.length + 4),
      webhookSecret: issued.webhookSecret,
      createdAt: new Date().toISOString(),
    });
    return issued;
  }

  /** The active (not revoked) key with this plaintext, if any. */
  findActive(key: string): ApiKeyRecord | undefined {
    const row = this.byHash.get(hashApiKey(key)) as Row | undefined;
    return row && toRecord(row);
  }

  /** The key with this id, revoked or not. */
  get(id: string): ApiKeyRecord | undefined {
    const row = this.byId.get(id) as Row | undefined;
    return row && toRecord(row);
  }

  list(): ApiKeyRecord[] {
    return (this.all.all() as Row[]).map(toRecord);
  }

  /** True if the key was active and is now revoked. */
  revoke(id: string, now = new Date()): boolean {
    return this.revokeStmt.run(now.toISOString(), id).changes === 1;
  }

  touch(id: string, when = new Date()): void {
    this.touchStmt.run(when.toISOString(), id);
  }

  /**
   * The secrets that sign this key's webhooks now: the current one, and during the grace period after
   * a rotation the previous one too (receivers that have not switched yet keep verifying).
   */
  signingSecrets(id: string, now = new Date()): string[] {
    const row = this.secretStmt.get(id) as SecretRow | undefined;
    if (!row) return [];
    const previousValid =
      row.previous_webhook_secret &&
      row.previous_secret_expires_at &&
      row.previous_secret_expires_at > now.toISOString();
    return previousValid ? [row.webhook_secret, row.previous_webhook_secret!] : [row.webhook_secret];
  }

  /** A new signing secret for an active key; the old one keeps signing for `graceMs`. */
  rotateSecret(id: string, graceMs: number, now = new Date()): string | undefined {
    const secret = newWebhookSecret();
    const changed = this.rotateStmt.run({
      id,
      secret,
      graceUntil: new Date(now.getTime() + graceMs).toISOString(),
    }).changes;
    return changed === 1 ? secret : undefined;
  }
}

interface SecretRow {
  webhook_secret: string;
  previous_webhook_secret: string | null;
  previous_secret_expires_at: string | null;
}
