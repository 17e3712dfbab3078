// The api_keys table. Keys themselves are never stored: they are shown once, at creation.
import type { Kysely, Transaction } from 'kysely';
import { hashApiKey, KEY_PREFIX, newApiKey, newKeyId, newWebhookSecret } from '../../domain/key-material.js';
import type { ApiKeyRecord, ApiKeyStore, IssuedKey } from '../api-keys.js';
import type { DB } from './schema.js';
import type { Notify } from './stores-over.js';

const COLUMNS = [
  'id',
  'name',
  'key_prefix as keyPrefix',
  'created_at as createdAt',
  'revoked_at as revokedAt',
  'last_used_at as lastUsedAt',
] as const;

export class SqlApiKeyStore implements ApiKeyStore {
  // `keys` after a revocation: the claims already refuse a revoked key's work; this lets every node stop
  // what it has in flight for the key at once rather than at its next poll.
  constructor(
    private readonly db: Kysely<DB> | Transaction<DB>,
    private readonly notify: Notify,
  ) {}

  async create(name: string): Promise<IssuedKey> {
    const issued = { id: newKeyId(), name, key: newApiKey(), webhookSecret: newWebhookSecret() };
    await this.db
      .insertInto('api_keys')
      .values({
        id: issued.id,
        name,
        key_hash: hashApiKey(issued.key),
        key_prefix: issued.key.slice(0, KEY_PREFIX.length + 4),
        webhook_secret: issued.webhookSecret,
        created_at: new Date().toISOString(),
      })
      .execute();
    return issued;
  }

  findActive(key: string): Promise<ApiKeyRecord | undefined> {
    return this.db
      .selectFrom('api_keys')
      .select(COLUMNS)
      .where('key_hash', '=', hashApiKey(key))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  }

  get(id: string): Promise<ApiKeyRecord | undefined> {
    return this.db.selectFrom('api_keys').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.db.selectFrom('api_keys').select(COLUMNS).orderBy('created_at').orderBy('id').execute();
  }

  async revoke(id: string, now = new Date()): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now.toISOString() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const revoked = numUpdatedRows === 1n;
    if (revoked) this.notify('keys');
    return revoked;
  }

  async touch(id: string, when = new Date()): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: when.toISOString() }).where('id', '=', id).execute();
  }

  async signingSecrets(id: string, now = new Date()): Promise<string[]> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(['webhook_secret', 'previous_webhook_secret', 'previous_secret_expires_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return [];
    const previous = row.previous_webhook_secret;
    const previousValid =
      previous && row.previous_secret_expires_at && row.previous_secret_expires_at > now.toISOString();
    return previousValid ? [row.webhook_secret, previous] : [row.webhook_secret];
  }

  async rotateSecret(id: string, graceMs: number, now = new Date()): Promise<string | undefined> {
    const secret = newWebhookSecret();
    // Every right-hand side reads the row as it was: the previous secret is the one being replaced.
    const { numUpdatedRows } = await this.db
      .updateTable('api_keys')
      .set((eb) => ({
        previous_webhook_secret: eb.ref('webhook_secret'),
        previous_secret_expires_at: new Date(now.getTime() + graceMs).toISOString(),
        webhook_secret: secret,
      }))
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return numUpdatedRows === 1n ? secret : undefined;
  }
}

// Tests import the record types from here, as they did before the stores had interfaces.
