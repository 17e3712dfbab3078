// INTERIM (issue 12): the synchronous monitors store, kept only for the callers that are not async yet
// (the capture recorder, monitor runs, the capture job, status). Delete once none uses it: the store
// is SqlMonitorStore (monitors.ts) behind the MonitorStore interface (src/stores/monitors.ts).
import type { MonitorRecord, MonitorStatus } from '../stores/monitors.js';
import type { CaptureOptions, MonitorSettings } from '../monitors/settings.js';
import type { Db } from './open.js';

interface Row {
  id: string;
  key_id: string;
  name: string;
  url: string;
  schedule: string;
  timezone: string;
  paused: number;
  capture: string;
  diff: string;
  notify_when: string;
  notify: string;
  retention: string;
  webhook_url: string | null;
  base_url: string;
  spec_version: number;
  last_run_at: string | null;
  next_run_at: string | null;
  last_status: MonitorStatus | null;
  last_change_at: string | null;
  skipped_runs: number;
  created_at: string;
  updated_at: string;
}

function toRecord(r: Row): MonitorRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    settings: {
      name: r.name,
      url: r.url,
      schedule: r.schedule,
      timezone: r.timezone,
      paused: r.paused === 1,
      capture: JSON.parse(r.capture) as CaptureOptions,
      diff: JSON.parse(r.diff) as MonitorSettings['diff'],
      notifyWhen: JSON.parse(r.notify_when) as MonitorSettings['notifyWhen'],
      notify: JSON.parse(r.notify) as MonitorSettings['notify'],
      retention: JSON.parse(r.retention) as MonitorSettings['retention'],
      ...(r.webhook_url !== null && { webhookUrl: r.webhook_url }),
    },
    baseUrl: r.base_url,
    specVersion: r.spec_version,
    lastRunAt: r.last_run_at,
    nextRunAt: r.next_run_at,
    lastStatus: r.last_status,
    lastChangeAt: r.last_change_at,
    skippedRuns: r.skipped_runs,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function settingsParams(s: MonitorSettings & { name: string }) {
  return {
    name: s.name,
    url: s.url,
    schedule: s.schedule,
    timezone: s.timezone,
    paused: s.paused ? 1 : 0,
    capture: JSON.stringify(s.capture),
    diff: JSON.stringify(s.diff),
    notifyWhen: JSON.stringify(s.notifyWhen),
    notify: JSON.stringify(s.notify),
    retention: JSON.stringify(s.retention),
    webhookUrl: s.webhookUrl ?? null,
  };
}

/** The monitor's key has not been revoked. */
const KEY_ACTIVE = 'key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NULL)';

export class SyncMonitorStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert:
        db.prepare(`INSERT INTO monitors (id, key_id, name, url, schedule, timezone, paused, capture, diff, notify_when, notify, retention,
          webhook_url, base_url, created_at, updated_at)
        VALUES (@id, @keyId, @name, @url, @schedule, @timezone, @paused, @capture, @diff, @notifyWhen, @notify, @retention,
          @webhookUrl, @baseUrl, @now, @now)`),
      byId: db.prepare('SELECT * FROM monitors WHERE id = ?'),
      byKey: db.prepare('SELECT * FROM monitors WHERE id = ? AND key_id = ?'),
      list: db.prepare(`SELECT * FROM monitors WHERE key_id = @keyId
        AND (@beforeAt IS NULL OR created_at < @beforeAt OR (created_at = @beforeAt AND id < @beforeId))
        ORDER BY created_at DESC, id DESC LIMIT @limit`),
      active: db.prepare('SELECT * FROM monitors WHERE paused = 0 ORDER BY created_at, id'),
      all: db.prepare('SELECT * FROM monitors ORDER BY created_at, id'),
      setCapture: db.prepare('UPDATE monitors SET capture = @capture WHERE id = @id'),
      countByKey: db.prepare('SELECT COUNT(*) AS n FROM monitors WHERE key_id = ?'),
      countByPaused: db.prepare('SELECT paused, COUNT(*) AS n FROM monitors GROUP BY paused'),
      nextRuns: db.prepare(
        'SELECT next_run_at AS at FROM monitors WHERE paused = 0 AND next_run_at IS NOT NULL ORDER BY next_run_at LIMIT ?',
      ),
      update:
        db.prepare(`UPDATE monitors SET name = @name, url = @url, schedule = @schedule, timezone = @timezone, paused = @paused,
          capture = @capture, diff = @diff, notify_when = @notifyWhen, notify = @notify, retention = @retention, webhook_url = @webhookUrl,
          base_url = @baseUrl, spec_version = spec_version + @specBump, updated_at = @now
        WHERE id = @id`),
      delete: db.prepare('DELETE FROM monitors WHERE id = ?'),
      setNextRun: db.prepare('UPDATE monitors SET next_run_at = ? WHERE id = ?'),
      setNextRunIfActive: db.prepare(
        `UPDATE monitors SET next_run_at = ? WHERE id = ? AND paused = 0 AND ${KEY_ACTIVE}`,
      ),
      // A schedule tick is taken once: by the first process to move last_tick_at past it. Never for a
      // revoked key (a request in flight at the revocation may have left its monitor unpaused), and never
      // closer than `notAfter` to the previous one: a schedule stored before monitors.minIntervalSeconds
      // (or before it was raised) runs no faster than the limit.
      claimTick: db.prepare(`UPDATE monitors SET last_tick_at = @tick
        WHERE id = @id AND paused = 0 AND ${KEY_ACTIVE}
          AND (last_tick_at IS NULL OR (last_tick_at < @tick AND last_tick_at <= @notAfter))`),
      recordSkip: db.prepare('UPDATE monitors SET skipped_runs = skipped_runs + 1 WHERE id = ?'),
      recordRun: db.prepare(`UPDATE monitors SET last_run_at = @at, last_status = @status,
          last_change_at = CASE WHEN @status = 'changed' THEN @at ELSE last_change_at END WHERE id = @id`),
    };
  }

  insert(
    m: { id: string; keyId: string; settings: MonitorSettings & { name: string }; baseUrl: string },
    now: Date,
  ): void {
    this.stmts.insert.run({
      id: m.id,
      keyId: m.keyId,
      baseUrl: m.baseUrl,
      ...settingsParams(m.settings),
      now: now.toISOString(),
    });
  }

  get(id: string): MonitorRecord | undefined {
    const row = this.stmts.byId.get(id) as Row | undefined;
    return row && toRecord(row);
  }

  /** The monitor if it belongs to this key; another key's monitor is as good as missing. */
  getOwned(keyId: string, id: string): MonitorRecord | undefined {
    const row = this.stmts.byKey.get(id, keyId) as Row | undefined;
    return row && toRecord(row);
  }

  list(keyId: string, q: { limit: number; before?: { createdAt: string; id: string } }): MonitorRecord[] {
    return (
      this.stmts.list.all({
        keyId,
        limit: q.limit,
        beforeAt: q.before?.createdAt ?? null,
        beforeId: q.before?.id ?? null,
      }) as Row[]
    ).map(toRecord);
  }

  /** Every monitor that is not paused, oldest first (what the scheduler schedules at start). */
  active(): MonitorRecord[] {
    return (this.stmts.active.all() as Row[]).map(toRecord);
  }

  /** Every monitor, paused or not (for one-time passes over stored settings at start). */
  all(): MonitorRecord[] {
    return (this.stmts.all.all() as Row[]).map(toRecord);
  }

  /**
   * The capture options rewritten in place, as stored data, not as a change: no new baseline, no new
   * `updatedAt`. The caller makes sure they capture the same thing (e.g. secrets sealed, not changed).
   */
  rewriteCapture(id: string, capture: CaptureOptions): void {
    this.stmts.setCapture.run({ id, capture: JSON.stringify(capture) });
  }

  countByKey(keyId: string): number {
    return (this.stmts.countByKey.get(keyId) as { n: number }).n;
  }

  counts(): { active: number; paused: number } {
    const counts = { active: 0, paused: 0 };
    for (const { paused, n } of this.stmts.countByPaused.all() as { paused: number; n: number }[])
      counts[paused ? 'paused' : 'active'] = n;
    return counts;
  }

  /** The soonest scheduled runs of all monitors (times only). */
  nextRuns(limit: number): string[] {
    return (this.stmts.nextRuns.all(limit) as { at: string }[]).map((r) => r.at);
  }

  /** `newBaseline`: what is captured changed, so the next capture starts a new baseline. */
  update(
    id: string,
    settings: MonitorSettings & { name: string },
    baseUrl: string,
    newBaseline: boolean,
    now: Date,
  ): void {
    this.stmts.update.run({
      id,
      baseUrl,
      specBump: newBaseline ? 1 : 0,
      ...settingsParams(settings),
      now: now.toISOString(),
    });
  }

  delete(id: string): void {
    this.stmts.delete.run(id);
  }

  setNextRun(id: string, at: Date | null): void {
    this.stmts.setNextRun.run(at?.toISOString() ?? null, id);
  }

  /** False if the monitor is paused or gone (e.g. its key was revoked by another process): nothing is set. */
  setNextRunIfActive(id: string, at: Date | null): boolean {
    return this.stmts.setNextRunIfActive.run(at?.toISOString() ?? null, id).changes === 1;
  }

  /** Take the tick at `tick`, if the previous one taken was at least `minGapMs` before it. */
  claimTick(id: string, tick: Date, minGapMs = 0): boolean {
    const notAfter = new Date(tick.getTime() - minGapMs).toISOString();
    return this.stmts.claimTick.run({ id, tick: tick.toISOString(), notAfter }).changes === 1;
  }

  recordSkip(id: string): void {
    this.stmts.recordSkip.run(id);
  }

  recordRun(id: string, status: MonitorStatus, at: Date): void {
    this.stmts.recordRun.run({ id, status, at: at.toISOString() });
  }
}
