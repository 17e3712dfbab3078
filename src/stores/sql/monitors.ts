// The monitors table over Kysely: a monitor's settings (JSON columns, parsed in monitor-rows.ts and
// nowhere else) and the state the scheduler keeps current.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { CaptureOptions, NamedSettings } from '../../domain/monitor-settings.js';
import type { MonitorListQuery, MonitorRecord, MonitorStore, NewMonitor } from '../monitors.js';
import type { MonitorStatus } from '../../domain/capture-findings.js';
import { settingsColumns, toRecord } from './monitor-rows.js';
import { tagKey } from '../../domain/tags.js';

/** LIKE pattern for monitors carrying `tag`: its key between bars, LIKE's own characters escaped. */
const tagPattern = (tag: string) => `%|${tagKey(tag).replace(/[\\%_]/g, (ch) => `\\${ch}`)}|%`;
import type { DB } from './schema.js';
import type { Notify } from './stores-over.js';

export class SqlMonitorStore implements MonitorStore {
  constructor(
    private readonly db: Kysely<DB> | Transaction<DB>,
    // `monitors` after a monitor is created, changed (paused and resumed too) or deleted: with several
    // nodes, each keeps its own schedules, and this tells the others to read them again.
    private readonly notify: Notify,
  ) {}

  /** The monitor's key has not been revoked. */
  private keyActive() {
    return this.db.selectFrom('api_keys').select('id').where('revoked_at', 'is', null);
  }

  async insert(m: NewMonitor, now: Date): Promise<void> {
    const at = now.toISOString();
    await this.db
      .insertInto('monitors')
      .values({
        id: m.id,
        key_id: m.keyId,
        ...settingsColumns(m.settings),
        base_url: m.baseUrl,
        created_at: at,
        updated_at: at,
      })
      .execute();
    this.notify('monitors');
  }

  async get(id: string): Promise<MonitorRecord | undefined> {
    const row = await this.db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async getOwned(keyId: string, id: string): Promise<MonitorRecord | undefined> {
    const row = await this.db
      .selectFrom('monitors')
      .selectAll()
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async list(keyId: string, q: MonitorListQuery): Promise<MonitorRecord[]> {
    const { before } = q;
    const rows = await this.db
      .selectFrom('monitors')
      .selectAll()
      .where('key_id', '=', keyId)
      .$if(q.tag !== undefined, (qb) => qb.where(sql<boolean>`tag_keys LIKE ${tagPattern(q.tag!)} ESCAPE '\\'`))
      .$if(before !== undefined, (qb) =>
        qb.where((eb) =>
          eb.or([
            eb('created_at', '<', before!.createdAt),
            eb.and([eb('created_at', '=', before!.createdAt), eb('id', '<', before!.id)]),
          ]),
        ),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit)
      .execute();
    return rows.map(toRecord);
  }

  async active(): Promise<MonitorRecord[]> {
    const rows = await this.db
      .selectFrom('monitors')
      .selectAll()
      .where('paused', '=', 0)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  async all(): Promise<MonitorRecord[]> {
    const rows = await this.db.selectFrom('monitors').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toRecord);
  }

  async rewriteCapture(id: string, capture: CaptureOptions): Promise<void> {
    await this.db
      .updateTable('monitors')
      .set({ capture: JSON.stringify(capture) })
      .where('id', '=', id)
      .execute();
  }

  async tags(keyId: string): Promise<{ tag: string; monitors: number }[]> {
    const rows = await this.db
      .selectFrom('monitors')
      .select('tags')
      .where('key_id', '=', keyId)
      .where('tag_keys', '!=', '')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    // One entry per tag key, spelled as the oldest monitor carrying it spells it.
    const byKey = new Map<string, { tag: string; monitors: number }>();
    for (const row of rows)
      for (const tag of JSON.parse(row.tags) as string[]) {
        const seen = byKey.get(tagKey(tag));
        if (seen) seen.monitors++;
        else byKey.set(tagKey(tag), { tag, monitors: 1 });
      }
    return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
  }

  async countByKey(keyId: string): Promise<number> {
    const { n } = await this.db
      .selectFrom('monitors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async counts(): Promise<{ active: number; paused: number }> {
    const rows = await this.db
      .selectFrom('monitors')
      .select((eb) => ['paused', eb.fn.countAll<number>().as('n')])
      .groupBy('paused')
      .execute();
    const counts = { active: 0, paused: 0 };
    for (const { paused, n } of rows) counts[paused ? 'paused' : 'active'] = Number(n);
    return counts;
  }

  async nextRuns(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('monitors')
      .select('next_run_at')
      .where('paused', '=', 0)
      .where('next_run_at', 'is not', null)
      .orderBy('next_run_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.next_run_at!);
  }

  async update(id: string, settings: NamedSettings, baseUrl: string, newBaseline: boolean, now: Date): Promise<void> {
    await this.db
      .updateTable('monitors')
      .set((eb) => ({
        ...settingsColumns(settings),
        base_url: baseUrl,
        spec_version: eb('spec_version', '+', newBaseline ? 1 : 0),
        updated_at: now.toISOString(),
      }))
      .where('id', '=', id)
      .execute();
    this.notify('monitors');
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('monitors').where('id', '=', id).execute(); // captures go with it (ON DELETE CASCADE)
    this.notify('monitors');
  }

  async setNextRun(id: string, at: Date | null): Promise<void> {
    await this.db
      .updateTable('monitors')
      .set({ next_run_at: at?.toISOString() ?? null })
      .where('id', '=', id)
      .execute();
  }

  async setNextRunIfActive(id: string, at: Date | null): Promise<boolean> {
    const result = await this.db
      .updateTable('monitors')
      .set({ next_run_at: at?.toISOString() ?? null })
      .where('id', '=', id)
      .where('paused', '=', 0)
      .where('key_id', 'in', this.keyActive())
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async claimCatchUp(id: string, missed: string, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('monitors')
      .set({ next_run_at: now.toISOString() })
      .where('id', '=', id)
      .where('next_run_at', '=', missed)
      .where('paused', '=', 0)
      .where('key_id', 'in', this.keyActive())
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async claimTick(id: string, tick: Date, minGapMs = 0): Promise<boolean> {
    // A schedule tick is taken once: by the first process to move last_tick_at past it. Never for a
    // revoked key (a request in flight at the revocation may have left its monitor unpaused), and never
    // closer than `notAfter` to the previous one.
    const at = tick.toISOString();
    const notAfter = new Date(tick.getTime() - minGapMs).toISOString();
    const result = await this.db
      .updateTable('monitors')
      .set({ last_tick_at: at })
      .where('id', '=', id)
      .where('paused', '=', 0)
      .where('key_id', 'in', this.keyActive())
      .where((eb) =>
        eb.or([
          eb('last_tick_at', 'is', null),
          eb.and([eb('last_tick_at', '<', at), eb('last_tick_at', '<=', notAfter)]),
        ]),
      )
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async recordSkip(id: string): Promise<void> {
    await this.db
      .updateTable('monitors')
      .set((eb) => ({ skipped_runs: eb('skipped_runs', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  async removeChannel(keyId: string, channelId: string): Promise<number> {
    // Channel ids are hex after a prefix: the quoted id cannot match inside another id or a name.
    const rows = await this.db
      .selectFrom('monitors')
      .select(['id', 'channels'])
      .where('key_id', '=', keyId)
      .where('channels', 'like', `%"${channelId}"%`)
      .execute();
    for (const row of rows) {
      const kept = (JSON.parse(row.channels!) as string[]).filter((id) => id !== channelId);
      await this.db
        .updateTable('monitors')
        .set({ channels: JSON.stringify(kept) })
        .where('id', '=', row.id)
        .execute();
    }
    return rows.length;
  }

  async recordRun(id: string, status: MonitorStatus, at: Date): Promise<void> {
    const when = at.toISOString();
    await this.db
      .updateTable('monitors')
      .set((eb) => ({
        last_run_at: when,
        last_status: status,
        last_change_at: status === 'changed' ? when : eb.ref('last_change_at'),
      }))
      .where('id', '=', id)
      .execute();
  }
}
