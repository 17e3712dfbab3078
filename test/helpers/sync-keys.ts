// API keys written straight to a test's database handle, synchronously: the rows `pagewatch keys
// create` writes (the same key material), for tests that set up keys without awaiting (the service's
// own stores are async: src/stores/sql/api-keys.ts). `revoke` marks the key only; it stops none of its work.
import type { Database } from 'better-sqlite3';
import { hashApiKey, KEY_PREFIX, newApiKey, newKeyId, newWebhookSecret } from '../../src/domain/key-material.js';
import type { ApiKeyRecord, IssuedKey } from '../../src/stores/api-keys.js';

export class SyncKeys {
  constructor(private readonly db: Database) {}

  create(name: string): IssuedKey {
    const issued = { id: newKeyId(), name, key: newApiKey(), webhookSecret: newWebhookSecret() };
    this.db
      .prepare(
        `INSERT INTO api_keys (id, name, key_hash, key_prefix, webhook_secret, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        issued.id,
        name,
        hashApiKey(issued.key),
        issued.key.slice(0, KEY_PREFIX.length + 4),
        issued.webhookSecret,
        new Date().toISOString(),
      );
    return issued;
  }

  /** True if the key was active and is now revoked. */
  revoke(id: string, now = new Date()): boolean {
    const sql = 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL';
    return this.db.prepare(sql).run(now.toISOString(), id).changes === 1;
  }

  get(id: string): ApiKeyRecord | undefined {
    return this.db
      .prepare(
        `SELECT id, name, key_prefix AS keyPrefix, created_at AS createdAt, revoked_at AS revokedAt,
          last_used_at AS lastUsedAt FROM api_keys WHERE id = ?`,
      )
      .get(id) as ApiKeyRecord | undefined;
  }
}
