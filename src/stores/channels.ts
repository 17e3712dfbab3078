// The channels store: a key's channels (where its monitors' alerts go besides their webhooks). The
// write-only parts of a channel (its url, token and header values) arrive sealed (channels/secrets.ts):
// the store keeps them as the opaque string they are, beside what the API may show of them.
import type { ChannelSettings } from '../domain/channels.js';

/** A channel's settings as stored: everything but the write-only parts, and what may be shown of those. */
export type StoredChannelSettings = Omit<ChannelSettings, 'url' | 'token' | 'headers' | 'name' | 'type' | 'default'> & {
  /** The url's origin, shown as "<origin>/••••". */
  urlOrigin?: string;
  /** A token is kept (shown as "••••"). */
  hasToken?: boolean;
  /** The names of the headers kept (their values shown as "••••"). */
  headerNames?: string[];
};

export interface ChannelRecord {
  id: string;
  keyId: string;
  name: string;
  type: ChannelSettings['type'];
  settings: StoredChannelSettings;
  /** Sealed JSON of {url?, token?, headers?}; null when the channel has none (email). */
  secrets: string | null;
  default: boolean;
  createdAt: string;
  updatedAt: string;
}

export type NewChannel = Omit<ChannelRecord, 'createdAt' | 'updatedAt'>;

export interface ChannelStore {
  insert(c: NewChannel, now: Date): Promise<void>;
  /** Any key's channel (the dispatcher's read: a delivery names its channel). */
  get(id: string): Promise<ChannelRecord | undefined>;
  /** The channel if it belongs to this key; another key's channel is as good as missing. */
  getOwned(keyId: string, id: string): Promise<ChannelRecord | undefined>;
  /** Those of `ids` that are this key's channels, in the order of `ids`. */
  getMany(keyId: string, ids: readonly string[]): Promise<ChannelRecord[]>;
  /** The key's channels, newest first. */
  list(keyId: string): Promise<ChannelRecord[]>;
  /** The key's default channels, oldest first. */
  defaults(keyId: string): Promise<ChannelRecord[]>;
  countByKey(keyId: string): Promise<number>;
  /** Everything but the id, key and creation time replaced. */
  update(c: NewChannel, now: Date): Promise<void>;
  delete(id: string): Promise<void>;
}
