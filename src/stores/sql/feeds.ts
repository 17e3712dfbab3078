// The feeds table over Kysely, and the captures a feed shows (its monitors' changes, newest first).
import type { Kysely, Transaction } from 'kysely';
import type { CaptureRecord } from '../captures.js';
import type { FeedRecord, FeedScope, FeedStore, NewFeed } from '../feeds.js';
import { toRecord as captureRecord } from './captures.js';
import type { DB } from './schema.js';

const COLUMNS = [
  'id',
  'key_id as keyId',
  'scope',
  'monitor_id as monitorId',
  'tag',
  'created_at as createdAt',
  'rotated_at as rotatedAt',
] as const;

type Row = Omit<FeedRecord, 'scope'> & { scope: string };
const toRecord = (r: Row): FeedRecord => ({ ...r, scope: r.scope as FeedScope });

export class SqlFeedStore implements FeedStore {
  // Nothing written here is waited on by other nodes: a feed is read when a reader asks for it.
  constructor(private readonly db: Kysely<DB> | Transaction<DB>) {}

  async insert(feed: NewFeed, now: Date): Promise<FeedRecord> {
    const createdAt = now.toISOString();
    await this.db
      .insertInto('feeds')
      .values({
        id: feed.id,
        key_id: feed.keyId,
        scope: feed.scope,
        monitor_id: feed.monitorId,
        tag: feed.tag,
        token_hash: feed.tokenHash,
        created_at: createdAt,
        rotated_at: null,
      })
      .execute();
    const { tokenHash: _hash, ...rest } = feed;
    return { ...rest, createdAt, rotatedAt: null };
  }

  async list(keyId: string): Promise<FeedRecord[]> {
    const rows = await this.db
      .selectFrom('feeds')
      .select(COLUMNS)
      .where('key_id', '=', keyId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toRecord);
  }

  async countByKey(keyId: string): Promise<number> {
    const { n } = await this.db
      .selectFrom('feeds')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async getOwned(keyId: string, id: string): Promise<FeedRecord | undefined> {
    const row = await this.db
      .selectFrom('feeds')
      .select(COLUMNS)
      .where('key_id', '=', keyId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async findActiveByTokenHash(tokenHash: string): Promise<FeedRecord | undefined> {
    const row = await this.db
      .selectFrom('feeds')
      .innerJoin('api_keys', 'api_keys.id', 'feeds.key_id')
      .select([
        'feeds.id',
        'feeds.key_id as keyId',
        'feeds.scope',
        'feeds.monitor_id as monitorId',
        'feeds.tag',
        'feeds.created_at as createdAt',
        'feeds.rotated_at as rotatedAt',
      ])
      .where('feeds.token_hash', '=', tokenHash)
      .where('api_keys.revoked_at', 'is', null) // a revoked key's feeds are gone with it
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async rotate(keyId: string, id: string, tokenHash: string, now: Date): Promise<FeedRecord | undefined> {
    const { numUpdatedRows } = await this.db
      .updateTable('feeds')
      .set({ token_hash: tokenHash, rotated_at: now.toISOString() })
      .where('key_id', '=', keyId)
      .where('id', '=', id)
      .executeTakeFirst();
    return numUpdatedRows === 1n ? this.getOwned(keyId, id) : undefined;
  }

  async delete(keyId: string, id: string): Promise<boolean> {
    const { numDeletedRows } = await this.db
      .deleteFrom('feeds')
      .where('key_id', '=', keyId)
      .where('id', '=', id)
      .executeTakeFirst();
    return numDeletedRows === 1n;
  }

  async changedCaptures(monitorIds: readonly string[], limit: number): Promise<CaptureRecord[]> {
    if (monitorIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('captures')
      .selectAll()
      .where('monitor_id', 'in', monitorIds)
      .where('changed', '=', 1)
      // As monitor.changed is told: with notifyWhen rules, only once they hold (null: no rules).
      .where((eb) => eb.or([eb('conditions_met', 'is', null), eb('conditions_met', '=', 1)]))
      .orderBy('taken_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(captureRecord);
  }
}
