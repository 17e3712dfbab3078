// The node registry on either database (see src/stores/nodes.ts): plain statements, no dialect piece.
import type { Kysely, Transaction } from 'kysely';
import type { NodeRecord, NodeStore } from '../nodes.js';
import type { NodeRole } from '../../domain/node-role.js';
import type { DB } from './schema.js';

export class SqlNodeStore implements NodeStore {
  constructor(private readonly db: Kysely<DB> | Transaction<DB>) {}

  async register(node: NodeRecord): Promise<void> {
    const row = {
      id: node.id,
      role: node.role,
      host: node.host,
      pid: node.pid,
      version: node.version,
      started_at: node.startedAt,
      heartbeat_at: node.heartbeatAt,
    };
    await this.db
      .insertInto('nodes')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: row.heartbeat_at }))
      .execute();
  }

  async heartbeat(id: string, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('nodes')
      .set({ heartbeat_at: at.toISOString() })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('nodes').where('id', '=', id).execute();
  }

  async list(): Promise<NodeRecord[]> {
    const rows = await this.db.selectFrom('nodes').selectAll().orderBy('started_at').orderBy('id').execute();
    return rows.map((r) => ({
      id: r.id,
      role: r.role as NodeRole,
      host: r.host,
      pid: Number(r.pid),
      version: r.version,
      startedAt: r.started_at,
      heartbeatAt: r.heartbeat_at,
    }));
  }

  async deleteStale(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('nodes')
      .where('heartbeat_at', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
