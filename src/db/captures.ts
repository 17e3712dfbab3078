// The captures table: one row per finished capture of a monitor, successful or not.
import type { Box } from '../render/capture-image.js';
import type { Db } from './open.js';
export type CaptureReason = 'schedule' | 'manual' | 'catch-up';

export interface CaptureRecord {
  id: string;
  monitorId: string;
  status: 'succeeded' | 'failed';
  reason: CaptureReason;
  specVersion: number;
  takenAt: string;
  /** The list order: the same as takenAt. */
  createdAt: string;
  durationMs: number;
  width: number | null;
  height: number | null;
  sha256: string | null;
  imageKey: string | null;
  diffKey: string | null;
  baselineId: string | null;
  changed: boolean;
  confirmed: boolean;
  diffPixels: number;
  diffRatio: number;
  regions: Box[];
  ignoredBoxes: Box[];
  truncated: boolean;
  error: { code: string; message: string } | null;
}

/** `storedBytes`: what its image and diff image take on disk (counted against monitors.maxStoredBytesPerKey); 0 if absent. */
export type NewCapture = Omit<CaptureRecord, 'createdAt'> & { storedBytes?: number };

interface Row {
  id: string; monitor_id: string; status: 'succeeded' | 'failed'; reason: CaptureReason; spec_version: number; taken_at: string;
  duration_ms: number; width: number | null; height: number | null; sha256: string | null; image_key: string | null;
  diff_key: string | null; baseline_id: string | null; changed: number; confirmed: number; diff_pixels: number; diff_ratio: number;
  regions: string; ignored_boxes: string; truncated: number; error_code: string | null; error_message: string | null;
}

function toRecord(r: Row): CaptureRecord {
  return {
    id: r.id, monitorId: r.monitor_id, status: r.status, reason: r.reason, specVersion: r.spec_version, takenAt: r.taken_at,
    createdAt: r.taken_at, durationMs: r.duration_ms, width: r.width, height: r.height, sha256: r.sha256, imageKey: r.image_key,
    diffKey: r.diff_key, baselineId: r.baseline_id, changed: r.changed === 1, confirmed: r.confirmed === 1, diffPixels: r.diff_pixels,
    diffRatio: r.diff_ratio, regions: JSON.parse(r.regions) as Box[], ignoredBoxes: JSON.parse(r.ignored_boxes) as Box[],
    truncated: r.truncated === 1, error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
  };
}

export class CaptureStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO captures (id, monitor_id, status, reason, spec_version, taken_at, duration_ms, width, height,
          sha256, image_key, diff_key, baseline_id, changed, confirmed, diff_pixels, diff_ratio, regions, ignored_boxes, truncated,
          error_code, error_message, stored_bytes)
        VALUES (@id, @monitorId, @status, @reason, @specVersion, @takenAt, @durationMs, @width, @height,
          @sha256, @imageKey, @diffKey, @baselineId, @changed, @confirmed, @diffPixels, @diffRatio, @regions, @ignoredBoxes, @truncated,
          @errorCode, @errorMessage, @storedBytes)`),
      byKey: db.prepare(`SELECT c.* FROM captures c JOIN monitors m ON m.id = c.monitor_id WHERE c.id = ? AND m.key_id = ?`),
      list: db.prepare(`SELECT * FROM captures WHERE monitor_id = @monitorId
        AND (@beforeAt IS NULL OR taken_at < @beforeAt OR (taken_at = @beforeAt AND id < @beforeId))
        ORDER BY taken_at DESC, id DESC LIMIT @limit`),
      baseline: db.prepare(`SELECT * FROM captures WHERE monitor_id = ? AND spec_version = ? AND status = 'succeeded'
        ORDER BY taken_at DESC, id DESC LIMIT 1`),
      // Everything older than the newest `keep`, except the baseline the next capture is compared with.
      prune: db.prepare(`DELETE FROM captures WHERE monitor_id = @monitorId AND id != @baselineId AND id NOT IN (
          SELECT id FROM captures WHERE monitor_id = @monitorId ORDER BY taken_at DESC, id DESC LIMIT @keep)
        RETURNING id, image_key AS imageKey, diff_key AS diffKey`),
      storedBytesOfKey: db.prepare(`SELECT COALESCE(SUM(c.stored_bytes), 0) AS total FROM captures c
        JOIN monitors m ON m.id = c.monitor_id WHERE m.key_id = ?`),
      // A key's captures that hold files, oldest first, except each monitor's current baseline (the
      // newest successful capture of its current spec_version: what the next capture is compared with).
      evictable: db.prepare(`SELECT c.id, c.stored_bytes AS storedBytes FROM captures c JOIN monitors m ON m.id = c.monitor_id
        WHERE m.key_id = @keyId AND c.stored_bytes > 0 AND c.id != @keepId
          AND c.id != COALESCE((SELECT b.id FROM captures b WHERE b.monitor_id = c.monitor_id AND b.spec_version = m.spec_version
            AND b.status = 'succeeded' ORDER BY b.taken_at DESC, b.id DESC LIMIT 1), '')
        ORDER BY c.taken_at ASC, c.id ASC`),
      remove: db.prepare('DELETE FROM captures WHERE id = ? RETURNING image_key AS imageKey, diff_key AS diffKey'),
      exists: db.prepare('SELECT 1 FROM captures WHERE id = ?'),
      holdsFile: db.prepare('SELECT 1 FROM captures WHERE id = ? AND (image_key = ? OR diff_key = ?)'),
    };
  }

  insert(c: NewCapture): void {
    this.stmts.insert.run({
      ...c, changed: c.changed ? 1 : 0, confirmed: c.confirmed ? 1 : 0, truncated: c.truncated ? 1 : 0,
      regions: JSON.stringify(c.regions), ignoredBoxes: JSON.stringify(c.ignoredBoxes),
      errorCode: c.error?.code ?? null, errorMessage: c.error?.message ?? null, storedBytes: c.storedBytes ?? 0,
    });
  }

  /** The capture if its monitor belongs to this key. */
  getOwned(keyId: string, id: string): CaptureRecord | undefined {
    const row = this.stmts.byKey.get(id, keyId) as Row | undefined;
    return row && toRecord(row);
  }

  list(monitorId: string, q: { limit: number; before?: { createdAt: string; id: string } }): CaptureRecord[] {
    return (this.stmts.list.all({ monitorId, limit: q.limit, beforeAt: q.before?.createdAt ?? null, beforeId: q.before?.id ?? null }) as Row[])
      .map(toRecord);
  }

  /** The newest successful capture taken with the monitor's current settings: what the next is compared with. */
  baseline(monitorId: string, specVersion: number): CaptureRecord | undefined {
    const row = this.stmts.baseline.get(monitorId, specVersion) as Row | undefined;
    return row && toRecord(row);
  }

  /** Delete rows past retention: their ids, and the file keys they held (remove those once the transaction commits). */
  prune(monitorId: string, keep: number, baselineId: string | undefined): { ids: string[]; keys: string[] } {
    const rows = this.stmts.prune.all({ monitorId, keep, baselineId: baselineId ?? '' }) as
      { id: string; imageKey: string | null; diffKey: string | null }[];
    return { ids: rows.map((r) => r.id), keys: rows.flatMap((r) => [r.imageKey, r.diffKey].filter((k): k is string => k !== null)) };
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
    for (const row of this.stmts.evictable.iterate({ keyId, keepId }) as Iterable<{ id: string; storedBytes: number }>) {
      victims.push(row.id);
      excess -= row.storedBytes;
      if (excess <= 0) break;
    }
    for (const id of victims) {
      const row = this.stmts.remove.get(id) as { imageKey: string | null; diffKey: string | null } | undefined;
      if (!row) continue;
      ids.push(id);
      keys.push(...[row.imageKey, row.diffKey].filter((k): k is string => k !== null));
    }
    return { ids, keys };
  }

  exists(id: string): boolean {
    return this.stmts.exists.get(id) !== undefined;
  }

  /** Whether capture `id` still refers to the stored file `key` (its image or its diff). */
  holdsFile(id: string, key: string): boolean {
    return this.stmts.holdsFile.get(id, key, key) !== undefined;
  }
}
