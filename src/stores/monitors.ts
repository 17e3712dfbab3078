// The monitors store: a monitor's settings, and the state the scheduler keeps current. The secrets
// among the capture options arrive sealed (see monitors/capture-secrets.ts): a store keeps them as
// the opaque strings they are.
import type { CaptureOptions, NamedSettings } from '../domain/monitor-settings.js';
import type { MonitorStatus } from '../domain/capture-findings.js';

export interface MonitorRecord {
  id: string;
  keyId: string;
  settings: NamedSettings;
  baseUrl: string;
  /** Bumped when what is captured changes: a capture is only compared with a baseline of the same version. */
  specVersion: number;
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastStatus: MonitorStatus | null;
  lastChangeAt: string | null;
  skippedRuns: number;
  createdAt: string;
  updatedAt: string;
}

export interface NewMonitor {
  id: string;
  keyId: string;
  settings: NamedSettings;
  baseUrl: string;
}

/** Newest first; `before` is the cursor: the last monitor of the previous page. */
export interface MonitorListQuery {
  limit: number;
  /** Only monitors with this tag (compared without case). */
  tag?: string;
  before?: { createdAt: string; id: string };
}

export interface MonitorStore {
  insert(m: NewMonitor, now: Date): Promise<void>;
  get(id: string): Promise<MonitorRecord | undefined>;
  /** The monitor if it belongs to this key; another key's monitor is as good as missing. */
  getOwned(keyId: string, id: string): Promise<MonitorRecord | undefined>;
  /** A key's monitors, newest first (created_at, then id). */
  list(keyId: string, q: MonitorListQuery): Promise<MonitorRecord[]>;
  /** Every monitor that is not paused, oldest first (what the scheduler schedules at start). */
  active(): Promise<MonitorRecord[]>;
  /** Every monitor, paused or not, oldest first (for one-time passes over stored settings at start). */
  all(): Promise<MonitorRecord[]>;
  /**
   * The capture options rewritten in place, as stored data, not as a change: no new baseline, no new
   * `updatedAt`. The caller makes sure they capture the same thing (e.g. secrets sealed, not changed).
   */
  rewriteCapture(id: string, capture: CaptureOptions): Promise<void>;
  countByKey(keyId: string): Promise<number>;
  /** The key's tags (one per tag compared without case, as first written), sorted, with how many monitors carry each. */
  tags(keyId: string): Promise<{ tag: string; monitors: number }[]>;
  counts(): Promise<{ active: number; paused: number }>;
  /** The soonest scheduled runs of unpaused monitors (times only), soonest first. */
  nextRuns(limit: number): Promise<string[]>;
  /** `newBaseline`: what is captured changed, so the next capture starts a new baseline (specVersion + 1). */
  update(id: string, settings: NamedSettings, baseUrl: string, newBaseline: boolean, now: Date): Promise<void>;
  /** The monitor and its captures. */
  delete(id: string): Promise<void>;
  setNextRun(id: string, at: Date | null): Promise<void>;
  /** False if the monitor is paused or gone, or its key revoked (e.g. by another process): nothing is set. */
  setNextRunIfActive(id: string, at: Date | null): Promise<boolean>;
  /**
   * Take the schedule tick at `tick`, once: true for the first caller only. Never for a paused monitor
   * or a revoked key, never for a tick at or before the last one taken, and never within `minGapMs`
   * after the last one taken (a schedule stored before the minimum interval was raised runs no faster).
   */
  claimTick(id: string, tick: Date, minGapMs?: number): Promise<boolean>;
  /**
   * Take the one catch-up of the run missed at `missed` (the stored next run), once: true for the first
   * caller only (nodes starting together all find the same missed run). Moves the stored next run to
   * `now`; the scheduler then stores the real next one.
   */
  claimCatchUp(id: string, missed: string, now: Date): Promise<boolean>;
  recordSkip(id: string): Promise<void>;
  /**
   * The channel is gone: taken out of the channels of the key's monitors that list it (a monitor left
   * with none keeps an empty list: it asked for specific channels, not the defaults). Not a change of
   * settings: no new `updatedAt`. How many monitors listed it.
   */
  removeChannel(keyId: string, channelId: string): Promise<number>;
  /** The outcome of a run; a 'changed' one is also the last change. */
  recordRun(id: string, status: MonitorStatus, at: Date): Promise<void>;
}
