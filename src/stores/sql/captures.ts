// The captures table over Kysely: one row per finished capture of a monitor, successful or not. Its
// regions, text changes and conditions are JSON columns, parsed here and nowhere else.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Box } from '../../domain/geometry.js';
import type { CaptureListQuery, CaptureRecord, CaptureStore, NewCapture, Removed } from '../captures.js';
import type {
  CaptureReason,
  CaptureStatus,
  ConditionResult,
  Region,
  TextChange,
} from '../../domain/capture-findings.js';
import type { CapturesTable, DB } from './schema.js';
import type { CaptureContent } from '../../domain/content.js';
import type { ProductFacts } from '../../domain/product.js';
import type { LoginOutcome } from '../../domain/saved-login.js';
import type { Notify } from './stores-over.js';

type Row = Selectable<CapturesTable>;

export function toRecord(r: Row): CaptureRecord {
  return {
    id: r.id,
    monitorId: r.monitor_id,
    status: r.status as CaptureRecord['status'],
    reason: r.reason as CaptureReason,
    specVersion: r.spec_version,
    takenAt: r.taken_at,
    createdAt: r.taken_at,
    durationMs: r.duration_ms,
    width: r.width,
    height: r.height,
    sha256: r.sha256,
    imageKey: r.image_key,
    diffKey: r.diff_key,
    baselineId: r.baseline_id,
    changed: r.changed === 1,
    confirmed: r.confirmed === 1,
    diffPixels: r.diff_pixels,
    diffRatio: r.diff_ratio,
    regions: JSON.parse(r.regions) as Region[],
    ignoredBoxes: JSON.parse(r.ignored_boxes) as Box[],
    truncated: r.truncated === 1,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    textKey: r.text_key,
    textChanges: JSON.parse(r.text_changes) as TextChange[],
    textChangesTotal: r.text_changes_total,
    conditions: JSON.parse(r.conditions) as ConditionResult[],
    conditionErrors: JSON.parse(r.condition_errors) as string[],
    conditionsMet: r.conditions_met === null ? null : r.conditions_met === 1,
    content: r.content === null ? null : (JSON.parse(r.content) as CaptureContent),
    product: r.product === null ? null : (JSON.parse(r.product) as ProductFacts),
    ...(r.login !== null && { login: r.login as LoginOutcome }),
  };
}

const fileKeysOf = (r: { image_key: string | null; diff_key: string | null; text_key: string | null }) =>
  [r.image_key, r.diff_key, r.text_key].filter((k): k is string => k !== null);

export class SqlCaptureStore implements CaptureStore {
  constructor(
    private readonly db: Kysely<DB> | Transaction<DB>,
    // Nothing written here is waited on by others (the capture's webhook events are deliveries).
    _notify: Notify,
  ) {}

  async insert(c: NewCapture): Promise<void> {
    await this.db
      .insertInto('captures')
      .values({
        id: c.id,
        monitor_id: c.monitorId,
        status: c.status,
        reason: c.reason,
        spec_version: c.specVersion,
        taken_at: c.takenAt,
        duration_ms: c.durationMs,
        width: c.width,
        height: c.height,
        sha256: c.sha256,
        image_key: c.imageKey,
        diff_key: c.diffKey,
        baseline_id: c.baselineId,
        changed: c.changed ? 1 : 0,
        confirmed: c.confirmed ? 1 : 0,
        diff_pixels: c.diffPixels,
        diff_ratio: c.diffRatio,
        regions: JSON.stringify(c.regions),
        ignored_boxes: JSON.stringify(c.ignoredBoxes),
        truncated: c.truncated ? 1 : 0,
        error_code: c.error?.code ?? null,
        error_message: c.error?.message ?? null,
        stored_bytes: c.storedBytes ?? 0,
        text_key: c.textKey,
        text_changes: JSON.stringify(c.textChanges),
        text_changes_total: c.textChangesTotal,
        conditions: JSON.stringify(c.conditions),
        condition_errors: JSON.stringify(c.conditionErrors),
        conditions_met: c.conditionsMet === null ? null : c.conditionsMet ? 1 : 0,
        content: c.content === null ? null : JSON.stringify(c.content),
        product: c.product === null ? null : JSON.stringify(c.product),
        login: c.login ?? null,
      })
      .execute();
  }

  async getOwned(keyId: string, id: string): Promise<CaptureRecord | undefined> {
    const row = await this.db
      .selectFrom('captures as c')
      .innerJoin('monitors as m', 'm.id', 'c.monitor_id')
      .selectAll('c')
      .where('c.id', '=', id)
      .where('m.key_id', '=', keyId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async list(monitorId: string, q: CaptureListQuery): Promise<CaptureRecord[]> {
    const { before } = q;
    const rows = await this.db
      .selectFrom('captures')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .$if(before !== undefined, (qb) =>
        qb.where((eb) =>
          eb.or([
            eb('taken_at', '<', before!.createdAt),
            eb.and([eb('taken_at', '=', before!.createdAt), eb('id', '<', before!.id)]),
          ]),
        ),
      )
      .orderBy('taken_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit)
      .execute();
    return rows.map(toRecord);
  }

  async baseline(monitorId: string, specVersion: number): Promise<CaptureRecord | undefined> {
    const row = await this.db
      .selectFrom('captures')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .where('spec_version', '=', specVersion)
      .where('status', '=', 'succeeded')
      .orderBy('taken_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async latestStatuses(monitorId: string, limit: number): Promise<CaptureStatus[]> {
    const rows = await this.db
      .selectFrom('captures')
      .select('status')
      .where('monitor_id', '=', monitorId)
      .orderBy('taken_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => row.status as CaptureStatus);
  }

  async prune(monitorId: string, keep: number, baselineId: string | undefined): Promise<Removed> {
    // Everything older than the newest `keep`, except the baseline the next capture is compared with.
    const rows = await this.db
      .deleteFrom('captures')
      .where('monitor_id', '=', monitorId)
      .where('id', '!=', baselineId ?? '')
      .where('id', 'not in', (eb) =>
        eb
          .selectFrom('captures')
          .select('id')
          .where('monitor_id', '=', monitorId)
          .orderBy('taken_at', 'desc')
          .orderBy('id', 'desc')
          .limit(keep),
      )
      .returning(['id', 'image_key', 'diff_key', 'text_key'])
      .execute();
    return { ids: rows.map((r) => r.id), keys: rows.flatMap(fileKeysOf) };
  }

  async storedBytesOfKey(keyId: string): Promise<number> {
    const { total } = await this.db
      .selectFrom('captures as c')
      .innerJoin('monitors as m', 'm.id', 'c.monitor_id')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('c.stored_bytes'), eb.lit(0)).as('total'))
      .where('m.key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  async evictOldest(keyId: string, maxBytes: number, keepId: string): Promise<Removed> {
    let excess = (await this.storedBytesOfKey(keyId)) - maxBytes;
    const removed: Removed = { ids: [], keys: [] };
    if (excess <= 0) return removed;
    // A key's captures that hold files, oldest first, except each monitor's current baseline (the
    // newest successful capture of its current spec_version: what the next capture is compared with).
    const evictable = await this.db
      .selectFrom('captures as c')
      .innerJoin('monitors as m', 'm.id', 'c.monitor_id')
      .select(['c.id', 'c.stored_bytes'])
      .where('m.key_id', '=', keyId)
      .where('c.stored_bytes', '>', 0)
      .where('c.id', '!=', keepId)
      .where('c.id', '!=', (eb) =>
        eb.fn.coalesce(
          eb
            .selectFrom('captures as b')
            .select('b.id')
            .whereRef('b.monitor_id', '=', 'c.monitor_id')
            .whereRef('b.spec_version', '=', 'm.spec_version')
            .where('b.status', '=', 'succeeded')
            .orderBy('b.taken_at', 'desc')
            .orderBy('b.id', 'desc')
            .limit(1),
          eb.val(''),
        ),
      )
      .orderBy('c.taken_at', 'asc')
      .orderBy('c.id', 'asc')
      .execute();
    const victims: string[] = [];
    for (const row of evictable) {
      victims.push(row.id);
      excess -= row.stored_bytes;
      if (excess <= 0) break;
    }
    for (const id of victims) {
      const row = await this.db
        .deleteFrom('captures')
        .where('id', '=', id)
        .returning(['image_key', 'diff_key', 'text_key'])
        .executeTakeFirst();
      if (!row) continue;
      removed.ids.push(id);
      removed.keys.push(...fileKeysOf(row));
    }
    return removed;
  }

  async exists(id: string): Promise<boolean> {
    const row = await this.db.selectFrom('captures').select('id').where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  async holdsFile(id: string, key: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('captures')
      .select('id')
      .where('id', '=', id)
      .where((eb) => eb.or([eb('image_key', '=', key), eb('diff_key', '=', key), eb('text_key', '=', key)]))
      .executeTakeFirst();
    return row !== undefined;
  }
}
