// What the HTTP routes ask of feeds: a key's feed URLs (create, list, rotate, revoke) and, for anyone who
// holds a feed's URL, its Atom document and the crops its entries show. The token is 32 random bytes
// (base64url) handed out once; only its SHA-256 is stored and looked up, so tokens are compared by hash.
import { createHash, randomBytes } from 'node:crypto';
import { PNG } from 'pngjs';
import { cropBox, cropPng } from '../channels/crops.js';
import { dashboardLinks } from '../channels/variables.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import type { Backend } from '../stores/backend.js';
import type { CaptureRecord } from '../stores/captures.js';
import type { FeedRecord, FeedScope } from '../stores/feeds.js';
import type { FileStore } from '../stores/file-store.js';
import type { MonitorRecord } from '../stores/monitors.js';
import { atomDocument, type AtomEntry } from './atom.js';

/** Entries in one feed document: the newest changes. */
export const FEED_ENTRIES = 50;
/** Feeds per key: far more than anyone reads, few enough that a leaked key cannot fill the table. */
export const MAX_FEEDS_PER_KEY = 100;
/** A token as handed out: 32 random bytes, base64url without padding. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Every monitor of a key is at most monitors.maxPerKey; this only bounds one read. */
const KEY_MONITORS_READ = 1_000_000;

export interface FeedServiceOptions {
  backend: Backend;
  files: FileStore;
  clock?: Clock;
}

export interface NewFeedRequest {
  scope: FeedScope;
  monitorId?: string;
  tag?: string;
}

/** A feed's Atom document, with what a reader's conditional GET compares. */
export interface FeedDocument {
  xml: string;
  /** The newest entry's time, or the feed's creation (or rotation) when it has none. */
  updated: Date;
  /** Changes whenever the entries (or the feed's URL) do. */
  etag: string;
}

export const hashFeedToken = (token: string) => createHash('sha256').update(token).digest('hex');
const newFeedId = () => 'fd_' + randomBytes(8).toString('hex');
const newToken = () => randomBytes(32).toString('base64url');

export class FeedService {
  private readonly clock: Clock;

  constructor(private readonly options: FeedServiceOptions) {
    this.clock = options.clock ?? systemClock;
  }

  private get stores() {
    return this.options.backend.stores;
  }

  /** A new feed and its token (to put in the URL shown once). */
  async create(keyId: string, req: NewFeedRequest): Promise<{ feed: FeedRecord; token: string }> {
    if (req.scope === 'monitor' && !(await this.stores.monitors.getOwned(keyId, req.monitorId!))) {
      throw invalidRequest(`no monitor ${req.monitorId}`, [
        { path: 'monitorId', message: `no monitor ${req.monitorId} for this key` },
      ]);
    }
    const token = newToken();
    const feed = await this.options.backend.transaction(async (tx) => {
      if ((await tx.feeds.countByKey(keyId)) >= MAX_FEEDS_PER_KEY) {
        throw conflict(`this key already has ${MAX_FEEDS_PER_KEY} feeds; delete one first`);
      }
      return tx.feeds.insert(
        {
          id: newFeedId(),
          keyId,
          scope: req.scope,
          monitorId: req.scope === 'monitor' ? req.monitorId! : null,
          tag: req.scope === 'tag' ? req.tag!.trim() : null,
          tokenHash: hashFeedToken(token),
        },
        this.clock.now(),
      );
    });
    return { feed, token };
  }

  list(keyId: string): Promise<FeedRecord[]> {
    return this.stores.feeds.list(keyId);
  }

  /** A new token: the old URL stops working at once. */
  async rotate(keyId: string, id: string): Promise<{ feed: FeedRecord; token: string }> {
    const token = newToken();
    const feed = await this.stores.feeds.rotate(keyId, id, hashFeedToken(token), this.clock.now());
    if (!feed) throw notFound(`no feed ${id}`);
    return { feed, token };
  }

  async delete(keyId: string, id: string): Promise<void> {
    if (!(await this.stores.feeds.delete(keyId, id))) throw notFound(`no feed ${id}`);
  }

  /** The feed a token opens; anything else (malformed, unknown, rotated, revoked, key revoked) is 404. */
  private async open(token: string): Promise<FeedRecord> {
    const feed = TOKEN.test(token) ? await this.stores.feeds.findActiveByTokenHash(hashFeedToken(token)) : undefined;
    if (!feed) throw notFound('no such feed');
    return feed;
  }

  /** The monitors a feed shows. */
  private async monitorsOf(feed: FeedRecord): Promise<MonitorRecord[]> {
    if (feed.scope === 'monitor') {
      const m = await this.stores.monitors.getOwned(feed.keyId, feed.monitorId!);
      return m ? [m] : [];
    }
    const tag = feed.scope === 'tag' ? feed.tag! : undefined;
    return this.stores.monitors.list(feed.keyId, { limit: KEY_MONITORS_READ, tag });
  }

  private title(feed: FeedRecord, monitors: MonitorRecord[]): string {
    if (feed.scope === 'monitor') return `Pagewatch: ${monitors[0]?.settings.name ?? 'a deleted monitor'}`;
    if (feed.scope === 'tag') return `Pagewatch: monitors tagged ${feed.tag}`;
    return 'Pagewatch: all monitors';
  }

  /** The Atom document of the feed `token` opens. `base`: the service's address for links. */
  async document(token: string, base: string): Promise<FeedDocument> {
    const feed = await this.open(token);
    const monitors = await this.monitorsOf(feed);
    const names = new Map(monitors.map((m) => [m.id, m.settings.name]));
    const captures = await this.stores.feeds.changedCaptures([...names.keys()], FEED_ENTRIES);
    const selfUrl = `${base}/feeds/${token}`;
    const entries: AtomEntry[] = captures.map((c) => ({
      capture: c,
      monitorName: names.get(c.monitorId) ?? c.monitorId,
      link: dashboardLinks(base, c.monitorId, c.id).capture!,
      ...(hasCrop(c) && { cropUrl: `${selfUrl}/crops/${c.id}.png` }),
    }));
    const updated = captures[0] ? new Date(captures[0].takenAt) : new Date(feed.rotatedAt ?? feed.createdAt);
    const xml = atomDocument({
      id: `urn:pagewatch:feed:${feed.id}`,
      title: this.title(feed, monitors),
      selfUrl,
      link: `${base}/monitors`,
      entries,
      emptyUpdated: updated,
    });
    return { xml, updated, etag: `"${createHash('sha256').update(xml).digest('base64url').slice(0, 27)}"` };
  }

  /**
   * The first changed region of capture `captureId`, cut from its image with a margin and scaled to at most
   * 600 px wide: only for a capture the feed shows (its scope, a change); 404 otherwise.
   */
  async crop(token: string, captureId: string): Promise<Buffer> {
    const feed = await this.open(token);
    const capture = await this.stores.captures.getOwned(feed.keyId, captureId);
    const inScope =
      capture &&
      capture.changed &&
      capture.conditionsMet !== false &&
      (await this.monitorsOf(feed)).some((m) => m.id === capture.monitorId);
    if (!inScope || !hasCrop(capture)) throw notFound(`no crop of capture ${captureId} in this feed`);
    let image: PNG;
    try {
      image = PNG.sync.read(await this.options.files.get(capture.imageKey!));
    } catch (err) {
      // Retention removed it since (or it is unreadable): the entry's picture is gone, not the service.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`capture ${captureId} is no longer kept`);
      throw new Error('read a capture image for a feed crop', { cause: err });
    }
    const box = cropBox(capture.regions[0]!, image.width, image.height);
    if (!box) throw notFound(`capture ${captureId}'s changed area is outside its image`);
    return cropPng(image, box);
  }
}

const hasCrop = (c: CaptureRecord) => c.imageKey !== null && c.regions.length > 0;
