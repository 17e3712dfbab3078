// INTERIM (issue 12): the synchronous captures store, kept only for the callers that are not async yet
// (the capture recorder, the capture job, the sweeper's file check). Delete once none uses it: the store
// is SqlCaptureStore (captures.ts) behind the CaptureStore interface (src/stores/captures.ts).
import type { Box } from '../geometry.js';
import type { CaptureReason, CaptureRecord, ConditionResult, NewCapture, TextChange } from '../stores/captures.js';
import type { Db } from './open.js';

interface Row {
  id: string;
  monitor_id: string;
  status: 'succeeded' | 'failed';
  reason: CaptureReason;
  spec_version: number;
  taken_at: string;
  duration_ms: number;
  width: number | null;
  height: number | null;
  sha256: string | null;
  image_key: string | null;
  diff_key: string | null;
  baseline_id: string | null;
  changed: number;
  confirmed: number;
  diff_pixels: number;
  diff_ratio: number;
  regions: string;
  ignored_boxes: string;
  truncated: number;
  error_code: string | null;
  error_message: string | null;
  text_key: string | null;
  text_changes: string;
  text_changes_total: number;
  conditions: string;
  condition_errors: string;
  conditions_met: number | null;
}

function toRecord(r: Row): CaptureRecord {
  return {
    id: r.id,
    monitorId: r.monitor_id,
    status: r.status,
    reason: r.reason,
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
    regions: JSON.parse(r.regions) as Box[],
    ignoredBoxes: JSON.parse(r.ignored_boxes) as Box[],
    truncated: r.truncated === 1,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    textKey: r.text_key,
    textChanges: JSON.parse(r.text_changes) as TextChange[],
    textChangesTotal: r.text_changes_total,
    conditions: JSON.parse(r.conditions) as ConditionResult[],
    conditionErrors: JSON.parse(r.condition_errors) as string[],
    conditionsMet: r.conditions_met === null ? null : r.conditions_met === 1,
  };
}

interface FileKeys {
  id: string;
  imageKey: string | null;
  diffKey: string | null;
  textKey: string | null;
}
const fileKeysOf = (r: Omit<FileKeys, 'id'>) =>
  [r.imageKey, r.diffKey, r.textKey].filter((k): k is string => k !== null);

export class SyncCaptureStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert:
        db.prepare(`INSERT INTO captures (id, monitor_id, status, reason, spec_version, taken_at, duration_ms, width, height,
          sha256, image_key, diff_key, baseline_id, changed, confirmed, diff_pixels, diff_ratio, regions, ignored_boxes, truncated,
          error_code, error_message, stored_bytes, text_key, text_changes, text_changes_total, conditions, condition_errors, conditions_met)
        VALUES (@id, @monitorId, @status, @reason, @specVersion, @takenAt, @durationMs, @width, @height,
          @sha256, @imageKey, @diffKey, @baselineId, @changed, @confirmed, @diffPixels, @diffRatio, @regions, @ignoredBoxes, @truncated,
          @errorCode, @errorMessage, @storedBytes, @textKey, @textChanges, @textChangesTotal, @conditions, @conditionErrors, @conditionsMet)`),
      byKey: db.prepare(
        `SELECT c.* FROM captures c JOIN monitors m ON m.id = c.monitor_id WHERE c.id = ? AND m.key_id = ?`,
      ),
      list: db.prepare(`SELECT * FROM captures WHERE monitor_id = @monitorId
        AND (@beforeAt IS NULL OR taken_at < @beforeAt OR (taken_at = @beforeAt AND id < @beforeId))
        ORDER BY taken_at DESC, id DESC LIMIT @limit`),
      baseline: db.prepare(`SELECT * FROM captures WHERE monitor_id = ? AND spec_version = ? AND status = 'succeeded'
        ORDER BY taken_at DESC, id DESC LIMIT 1`),
      // Everything older than the newest `keep`, except the baseline the next capture is compared with.
      prune: db.prepare(`DELETE FROM captures WHERE monitor_id = @monitorId AND id != @baselineId AND id NOT IN (
          SELECT id FROM captures WHERE monitor_id = @monitorId ORDER BY taken_at DESC, id DESC LIMIT @keep)
        RETURNING id, image_key AS imageKey, diff_key AS diffKey, text_key AS textKey`),
      storedBytesOfKey: db.prepare(`SELECT COALESCE(SUM(c.stored_bytes), 0) AS total FROM captures c
        JOIN monitors m ON m.id = c.monitor_id WHERE m.key_id = ?`),
      // A key's captures that hold files, oldest first, except each monitor's current baseline (the
      // newest successful capture of its current spec_version: what the next capture is compared with).
      evictable:
        db.prepare(`SELECT c.id, c.stored_bytes AS storedBytes FROM captures c JOIN monitors m ON m.id = c.monitor_id
        WHERE m.key_id = @keyId AND c.stored_bytes > 0 AND c.id != @keepId
          AND c.id != COALESCE((SELECT b.id FROM captures b WHERE b.monitor_id = c.monitor_id AND b.spec_version = m.spec_version
            AND b.status = 'succeeded' ORDER BY b.taken_at DESC, b.id DESC LIMIT 1), '')
        ORDER BY c.taken_at ASC, c.id ASC`),
      remove: db.prepare(
        'DELETE FROM captures WHERE id = ? RETURNING image_key AS imageKey, diff_key AS diffKey, text_key AS textKey',
      ),
      exists: db.prepare('SELECT 1 FROM captures WHERE id = ?'),
      holdsFile: db.prepare(
        'SELECT 1 FROM captures WHERE id = ? AND (image_key = @key OR diff_key = @key OR text_key = @key)',
      ),
    };
  }

  insert(c: NewCapture): void {
    this.stmts.insert.run({
      ...c,
      changed: c.changed ? 1 : 0,
      confirmed: c.confirmed ? 1 : 0,
      truncated: c.truncated ? 1 : 0,
      regions: JSON.stringify(c.regions),
      ignoredBoxes: JSON.stringify(c.ignoredBoxes),
      textChanges: JSON.stringify(c.textChanges),
      conditions: JSON.stringify(c.conditions),
      conditionErrors: JSON.stringify(c.conditionErrors),
      conditionsMet: c.conditionsMet === null ? null : c.conditionsMet ? 1 : 0,
      errorCode: c.error?.code ?? null,
      errorMessage: c.error?.message ?? null,
      storedBytes: c.storedBytes ?? 0,
    });
  }

  /** The capture if its monitor belongs to this key. */
  getOwned(keyId: string, id: string): CaptureRecord | undefined {
    const row = this.stmts.byKey.get(id, keyId) as Row | undefined;
    return row && toRecord(row);
  }

  list(monitorId: string, q: { limit: number; before?: { createdAt: string; id: string } }): CaptureRecord[] {
    return (
      this.stmts.list.all({
        monitorId,
        limit: q.limit,
        beforeAt: q.before?.createdAt ?? null,
        beforeId: q.before?.id ?? null,
      }) as Row[]
    ).map(toRecord);
  }

  /** The newest successful capture taken with the monitor's current settings: what the next is compared with. */
  baseline(monitorId: string, specVersion: number): CaptureRecord | undefined {
    const row = this.stmts.baseline.get(monitorId, specVersion) as Row | undefined;
    return row && toRecord(row);
  }

  /** Delete rows past retention: their ids, and the file keys they held (remove those once the transaction commits). */
  prune(monitorId: string, keep: number, baselineId: string | undefined): { ids: string[]; keys: string[] } {
    const rows = this.stmts.prune.all({ monitorId, keep, baselineId: baselineId ?? '' }) as FileKeys[];
    return { ids: rows.map((r) => r.id), keys: rows.flatMap(fileKeysOf) };
  }

  /** Bytes the captures of a key's monitors keep on disk (captures from before this was counted: 0). */
  storedBytesOfKey(keyId: string): number {
    return (this.stmts.storedBytesOfKey.get(keyId) as { total: number }).total;
  }

  /**
   * Delete the key's oldest captures until its stored bytes are at most `maxBytes`, sparing each
   * monitor's current baseline and capture `keepId`. Returns their ids and the file keys they held
   * (remove those once the transaction commits). Fewer may go than needed: the spared ones can be over alone.
   */
  evictOldest(keyId: string, maxBytes: number, keepId: string): { ids: string[]; keys: string[] } {
    let excess = this.storedBytesOfKey(keyId) - maxBytes;
    const ids: string[] = [];
    const keys: string[] = [];
    if (excess <= 0) return { ids, keys };
    const victims: string[] = [];
    for (const row of this.stmts.evictable.iterate({ keyId, keepId }) as Iterable<{
      id: string;
      storedBytes: number;
    }>) {
      victims.push(row.id);
      excess -= row.storedBytes;
      if (excess <= 0) break;
    }
    for (const id of victims) {
      const row = this.stmts.remove.get(id) as Omit<FileKeys, 'id'> | undefined;
      if (!row) continue;
      ids.push(id);
      keys.push(...fileKeysOf(row));
    }
    return { ids, keys };
  }

  exists(id: string): boolean {
    return this.stmts.exists.get(id) !== undefined;
  }

  /** Whether capture `id` still refers to the stored file `key` (its image or its diff). */
  holdsFile(id: string, key: string): boolean {
    return this.stmts.holdsFile.get(id, { key }) !== undefined;
  }
}
