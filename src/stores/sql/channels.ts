// The channels table over Kysely: a channel's stored settings (JSON, parsed here and nowhere else) and its
// sealed secrets, kept as the opaque string they are.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ChannelType } from '../../domain/channels.js';
import type { ChannelRecord, ChannelStore, NewChannel, StoredChannelSettings } from '../channels.js';
import type { ChannelsTable, DB } from './schema.js';

const toRecord = (r: Selectable<ChannelsTable>): ChannelRecord => ({
  id: r.id,
  keyId: r.key_id,
  name: r.name,
  type: r.type as ChannelType,
  settings: JSON.parse(r.settings) as StoredChannelSettings,
  secrets: r.secrets,
  default: r.is_default === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const columns = (c: NewChannel) => ({
  name: c.name,
  type: c.type,
  settings: JSON.stringify(c.settings),
  secrets: c.secrets,
  is_default: c.default ? 1 : 0,
});

export class SqlChannelStore implements ChannelStore {
  constructor(private readonly db: Kysely<DB> | Transaction<DB>) {}

  async insert(c: NewChannel, now: Date): Promise<void> {
    const at = now.toISOString();
    await this.db
      .insertInto('channels')
      .values({ id: c.id, key_id: c.keyId, ...columns(c), created_at: at, updated_at: at })
      .execute();
  }

  async get(id: string): Promise<ChannelRecord | undefined> {
    const row = await this.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async getOwned(keyId: string, id: string): Promise<ChannelRecord | undefined> {
    const row = await this.db
      .selectFrom('channels')
      .selectAll()
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async getMany(keyId: string, ids: readonly string[]): Promise<ChannelRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('channels')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('id', 'in', [...ids])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, toRecord(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async list(keyId: string): Promise<ChannelRecord[]> {
    const rows = await this.db
      .selectFrom('channels')
      .selectAll()
      .where('key_id', '=', keyId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toRecord);
  }

  async defaults(keyId: string): Promise<ChannelRecord[]> {
    const rows = await this.db
      .selectFrom('channels')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('is_default', '=', 1)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  async countByKey(keyId: string): Promise<number> {
    const { n } = await this.db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async update(c: NewChannel, now: Date): Promise<void> {
    await this.db
      .updateTable('channels')
      .set({ ...columns(c), updated_at: now.toISOString() })
      .where('id', '=', c.id)
      .where('key_id', '=', c.keyId)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('channels').where('id', '=', id).execute();
  }
}
