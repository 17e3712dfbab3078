// The feeds store: a key's Atom feed URLs. A feed's token is never stored, only its SHA-256 (hex):
// lookups go by that hash, and a rotation replaces it, so the old URL stops working at once.
import type { CaptureRecord } from './captures.js';

export type FeedScope = 'monitor' | 'tag' | 'key';

export interface FeedRecord {
  id: string;
  keyId: string;
  scope: FeedScope;
  /** Set for scope 'monitor'. */
  monitorId: string | null;
  /** Set for scope 'tag'. */
  tag: string | null;
  createdAt: string;
  rotatedAt: string | null;
}

export interface NewFeed {
  id: string;
  keyId: string;
  scope: FeedScope;
  monitorId: string | null;
  tag: string | null;
  tokenHash: string;
}

export interface FeedStore {
  insert(feed: NewFeed, now: Date): Promise<FeedRecord>;
  /** The key's feeds, newest first (created_at, then id). */
  list(keyId: string): Promise<FeedRecord[]>;
  countByKey(keyId: string): Promise<number>;
  /** The feed if it belongs to this key; another key's feed is as good as missing. */
  getOwned(keyId: string, id: string): Promise<FeedRecord | undefined>;
  /** The feed whose token hashes to `tokenHash`, if its key is not revoked. */
  findActiveByTokenHash(tokenHash: string): Promise<FeedRecord | undefined>;
  /** A new token hash for the key's feed; undefined when it has no such feed. */
  rotate(keyId: string, id: string, tokenHash: string, now: Date): Promise<FeedRecord | undefined>;
  /** True if the key had this feed. */
  delete(keyId: string, id: string): Promise<boolean>;
  /**
   * The changes of these monitors as monitor.changed tells them (changed, and notifyWhen rules held), newest
   * first (takenAt, then id), at most `limit`.
   */
  changedCaptures(monitorIds: readonly string[], limit: number): Promise<CaptureRecord[]>;
}
