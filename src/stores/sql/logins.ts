// The saved-logins store on SQLite and PostgreSQL (see src/stores/logins.ts).
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { LoginStore, SavedLoginRecord } from '../logins.js';
import type { DB, MonitorLoginsTable } from './schema.js';

const recordOf = (r: Selectable<MonitorLoginsTable>): SavedLoginRecord => ({
  monitorId: r.monitor_id,
  keyId: r.key_id,
  state: r.state,
  origins: JSON.parse(r.origins) as string[],
  savedAt: r.saved_at,
  expiresAt: r.expires_at,
});

export class SqlLoginStore implements LoginStore {
  constructor(private readonly db: Kysely<DB> | Transaction<DB>) {}

  async get(monitorId: string): Promise<SavedLoginRecord | undefined> {
    const row = await this.db
      .selectFrom('monitor_logins')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .executeTakeFirst();
    return row && recordOf(row);
  }

  async getOwned(keyId: string, monitorId: string): Promise<SavedLoginRecord | undefined> {
    const row = await this.db
      .selectFrom('monitor_logins')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row && recordOf(row);
  }

  async put(record: SavedLoginRecord): Promise<void> {
    const values = {
      monitor_id: record.monitorId,
      key_id: record.keyId,
      state: record.state,
      origins: JSON.stringify(record.origins),
      saved_at: record.savedAt,
      expires_at: record.expiresAt,
    };
    await this.db
      .insertInto('monitor_logins')
      .values(values)
      .onConflict((oc) =>
        oc.column('monitor_id').doUpdateSet((eb) => ({
          key_id: eb.ref('excluded.key_id'),
          state: eb.ref('excluded.state'),
          origins: eb.ref('excluded.origins'),
          saved_at: eb.ref('excluded.saved_at'),
          expires_at: eb.ref('excluded.expires_at'),
        })),
      )
      .execute();
  }

  async forget(monitorId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('monitor_logins').where('monitor_id', '=', monitorId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
