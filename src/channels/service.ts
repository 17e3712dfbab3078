// What the HTTP routes ask of channels: create, read, change, delete and test a key's channels, and check
// the channels a monitor lists. A channel's url is checked by the egress policy before it is stored (and
// again at every send); its write-only parts are sealed here, before the store sees them.
import { randomBytes } from 'node:crypto';
import type { ChannelSettings } from '../domain/channels.js';
import { mergePatch } from '../domain/monitor-settings.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { EgressPolicy } from '../egress/policy.js';
import { AppError, conflict, invalidRequest, notFound, type ErrorDetail } from '../errors.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Backend } from '../stores/backend.js';
import type { ChannelRecord } from '../stores/channels.js';
import type { DeliveryRecord } from '../stores/webhook-deliveries.js';
import { recordEvent } from '../webhooks/outbox.js';
import { MASK } from '../monitors/capture-secrets.js';
import { channelTestEventData, channelView, deliveryTarget, sealChannel } from './stored.js';

/** How many channels one key may have. */
export const MAX_CHANNELS_PER_KEY = 100;

export interface ChannelServiceOptions {
  backend: Backend;
  egress: EgressPolicy;
  secrets: SecretBox;
  /** The cluster's clock (the database's); this machine's unless given. */
  clock?: Clock;
}

export class ChannelService {
  private readonly clock: Clock;

  constructor(private readonly options: ChannelServiceOptions) {
    this.clock = options.clock ?? systemClock;
  }

  async create(keyId: string, settings: ChannelSettings): Promise<ChannelRecord> {
    await this.checkEgress(settings);
    const id = `chn_${randomBytes(10).toString('hex')}`;
    const sealed = sealChannel(id, settings, undefined, this.options.secrets);
    const now = this.clock.now();
    await this.options.backend.transaction(async (tx) => {
      if ((await tx.channels.countByKey(keyId)) >= MAX_CHANNELS_PER_KEY)
        throw conflict(`this key already has ${MAX_CHANNELS_PER_KEY} channels; delete one first`);
      await tx.channels.insert({ id, keyId, ...this.columns(settings), ...sealed }, now);
    });
    return (await this.options.backend.stores.channels.get(id))!;
  }

  async get(keyId: string, id: string): Promise<ChannelRecord> {
    const channel = await this.options.backend.stores.channels.getOwned(keyId, id);
    if (!channel) throw notFound(`no channel ${id}`);
    return channel;
  }

  list(keyId: string): Promise<ChannelRecord[]> {
    return this.options.backend.stores.channels.list(keyId);
  }

  /** A JSON Merge Patch applied to the channel as shown (secrets masked): validated whole by the caller. */
  async patched(keyId: string, id: string, patch: unknown): Promise<unknown> {
    const before = await this.get(keyId, id);
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
      throw invalidRequest('the body must be a JSON object (a JSON Merge Patch of the channel)', [
        { path: '', message: 'expected an object' },
      ]);
    // Checked before the merged channel is validated, whose type-specific rules would name other fields.
    if ('type' in patch && patch.type !== before.type) throw typeChange(before);
    const { id: _i, createdAt: _c, updatedAt: _u, ...shown } = channelView(before);
    return mergePatch(shown, patch);
  }

  /** The channel's new settings (`patched`, validated): masked values keep what is stored. */
  async update(keyId: string, id: string, settings: ChannelSettings): Promise<ChannelRecord> {
    const before = await this.get(keyId, id);
    if (settings.type !== before.type) throw typeChange(before);
    const sealed = sealChannel(id, settings, before, this.options.secrets);
    await this.checkEgress(settings); // a masked url is the one stored, checked when it was sent
    await this.options.backend.stores.channels.update(
      { id, keyId, ...this.columns(settings), ...sealed },
      this.clock.now(),
    );
    return this.get(keyId, id);
  }

  /** The channel goes, out of every monitor that lists it; its deliveries not yet sent fail. */
  async delete(keyId: string, id: string): Promise<void> {
    await this.get(keyId, id);
    await this.options.backend.transaction(async (tx) => {
      await tx.monitors.removeChannel(keyId, id);
      await tx.deliveries.failForChannel(id, 'not sent: the channel was deleted');
      await tx.channels.delete(id);
    });
  }

  /**
   * A channel.test event, sent at once whatever the channel's digest and quiet hours say, through the
   * outbox like every alert (retried, in the delivery log).
   */
  async test(keyId: string, id: string): Promise<DeliveryRecord> {
    const channel = await this.get(keyId, id);
    const { deliveries } = this.options.backend.stores;
    const deliveryId = await recordEvent(
      deliveries,
      {
        keyId,
        url: deliveryTarget(channel),
        type: 'channel.test',
        data: channelTestEventData(channel),
        channel: { channelId: channel.id, channelType: channel.type },
      },
      this.clock.now(),
    );
    return (await deliveries.get(keyId, deliveryId))!;
  }

  /** A monitor's `channels`: every id must be a channel of the key (400 naming those that are not). */
  async checkMonitorChannels(keyId: string, ids: readonly string[] | undefined): Promise<void> {
    if (!ids?.length) return;
    const found = new Set((await this.options.backend.stores.channels.getMany(keyId, ids)).map((c) => c.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length === 0) return;
    const problems: ErrorDetail[] = missing.map((id) => ({
      path: `channels.${ids.indexOf(id)}`,
      message: `no channel ${id}`,
    }));
    throw invalidRequest(`the monitor lists channels this key does not have: ${missing.join(', ')}`, problems);
  }

  private columns(s: ChannelSettings) {
    return { name: s.name, type: s.type, default: s.default };
  }

  /** A url the egress policy refuses is a bad field (400); the reason goes to the log only. */
  private async checkEgress(settings: ChannelSettings): Promise<void> {
    if (settings.url === undefined || settings.url.includes(MASK)) return;
    const verdict = await this.options.egress.checkUrl(settings.url);
    if (!verdict.allowed)
      throw new AppError(
        'invalid_request',
        'The url is not allowed by the egress policy: the service does not call private or internal addresses; use an address on the internet.',
        { details: [{ path: 'url', message: 'not allowed by the egress policy' }], logDetail: verdict.reason },
      );
  }
}

const typeChange = (c: ChannelRecord) =>
  invalidRequest('a channel keeps its type: make a new channel instead', [
    { path: 'type', message: `this channel is a ${c.type} channel` },
  ]);
