// The captures store: one record per finished capture of a monitor, successful or not.
import type { Box } from '../domain/geometry.js';
import type { CaptureContent } from '../domain/content.js';
import type { ProductFacts } from '../domain/product.js';
import type { LoginOutcome } from '../domain/saved-login.js';
import type { CaptureReason, CaptureStatus, ConditionResult, Region, TextChange } from '../domain/capture-findings.js';

export interface CaptureRecord {
  id: string;
  monitorId: string;
  status: CaptureStatus;
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
  regions: Region[];
  ignoredBoxes: Box[];
  truncated: boolean;
  error: { code: string; message: string } | null;
  /** The file holding this capture's text blocks (what the next capture's text is compared with). */
  textKey: string | null;
  /** At most MAX_TEXT_CHANGES, in reading order. */
  textChanges: TextChange[];
  /** All text changes found, including those not kept. */
  textChangesTotal: number;
  conditions: ConditionResult[];
  conditionErrors: string[];
  /** Every notifyWhen rule is true and one became true; null when the monitor has none. */
  conditionsMet: boolean | null;
  /** What the URL served; null for captures taken before content types were read (HTML). */
  content: CaptureContent | null;
  /** The product's price and stock as read; null when the page declares none. */
  product: ProductFacts | null;
  /** What the capture did with the monitor's saved login (capture.saveLogin); absent when it has none. */
  login?: LoginOutcome;
}

/**
 * `storedBytes`: what its image and diff image take on disk (counted against monitors.maxStoredBytesPerKey); 0 if
 * absent.
 */
export type NewCapture = Omit<CaptureRecord, 'createdAt'> & { storedBytes?: number };

/** Newest first; `before` is the cursor: the last capture of the previous page. */
export interface CaptureListQuery {
  limit: number;
  before?: { createdAt: string; id: string };
}

/** Capture records deleted, and the stored files they held (to remove once the transaction commits). */
export interface Removed {
  ids: string[];
  keys: string[];
}

export interface CaptureStore {
  insert(c: NewCapture): Promise<void>;
  /** The capture if its monitor belongs to this key. */
  getOwned(keyId: string, id: string): Promise<CaptureRecord | undefined>;
  /** A monitor's captures, newest first (takenAt, then id). */
  list(monitorId: string, q: CaptureListQuery): Promise<CaptureRecord[]>;
  /** The newest successful capture taken with the monitor's current settings: what the next is compared with. */
  baseline(monitorId: string, specVersion: number): Promise<CaptureRecord | undefined>;
  /** The statuses of a monitor's newest `limit` captures, newest first (takenAt, then id): a streak's length. */
  latestStatuses(monitorId: string, limit: number): Promise<CaptureStatus[]>;
  /** Delete a monitor's captures older than its newest `keep`, except `baselineId`. */
  prune(monitorId: string, keep: number, baselineId: string | undefined): Promise<Removed>;
  /** Bytes the captures of a key's monitors keep on disk (captures from before this was counted: 0). */
  storedBytesOfKey(keyId: string): Promise<number>;
  /**
   * Delete the key's oldest captures that hold files until its stored bytes are at most `maxBytes`,
   * sparing each monitor's current baseline and capture `keepId`. Fewer may go than needed: the spared
   * ones can be over alone.
   */
  evictOldest(keyId: string, maxBytes: number, keepId: string): Promise<Removed>;
  exists(id: string): Promise<boolean>;
  /** Whether capture `id` still refers to the stored file `key` (its image, diff image or text). */
  holdsFile(id: string, key: string): Promise<boolean>;
}
