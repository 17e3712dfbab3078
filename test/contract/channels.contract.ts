// The channels store's contract, and the channel side of the outbox (channel deliveries, holds and batches),
// as any backend must keep them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import type { NewChannel } from '../../src/stores/channels.js';
import { at, seedDelivery, seedMonitor } from './seed.js';

type Open = () => Promise<{ backend: Backend; close: () => Promise<void> }>;

const LEASE = 60_000;

const newChannel = (keyId: string, id: string, over: Partial<NewChannel> = {}): NewChannel => ({
  id,
  keyId,
  name: `Channel ${id}`,
  type: 'webhook',
  settings: { templates: {}, digest: 'off', digestAt: '09:00', urlOrigin: 'https://hooks.test' },
  secrets: 'enc:v1:sealed',
  default: false,
  ...over,
});

export function channelsContract(open: Open) {
  describe('channels store', () => {
    let backend: Backend;
    let close: () => Promise<void>;
    let keyId: string;
    let otherKey: string;
    beforeEach(async () => {
      ({ backend, close } = await open());
      keyId = (await backend.stores.keys.create('owner')).id;
      otherKey = (await backend.stores.keys.create('other')).id;
    });
    afterEach(() => close());
    const channels = () => backend.stores.channels;

    it('keeps a channel as given and lists a key’s channels newest first, never another key’s', async () => {
      const quiet = { start: '22:00', end: '07:00' };
      await channels().insert(
        newChannel(keyId, 'chn_a', {
          type: 'email',
          settings: {
            to: ['a@example.com'],
            templates: { body: 'x' },
            digest: 'daily',
            digestAt: '08:30',
            quietHours: quiet,
          },
          secrets: null,
          default: true,
        }),
        at(0),
      );
      await channels().insert(newChannel(keyId, 'chn_b'), at(1000));
      await channels().insert(newChannel(otherKey, 'chn_c'), at(2000));
      expect(await channels().get('chn_a')).toEqual({
        id: 'chn_a',
        keyId,
        name: 'Channel chn_a',
        type: 'email',
        settings: {
          to: ['a@example.com'],
          templates: { body: 'x' },
          digest: 'daily',
          digestAt: '08:30',
          quietHours: quiet,
        },
        secrets: null,
        default: true,
        createdAt: at(0).toISOString(),
        updatedAt: at(0).toISOString(),
      });
      expect((await channels().list(keyId)).map((c) => c.id)).toEqual(['chn_b', 'chn_a']);
      expect(await channels().getOwned(otherKey, 'chn_a')).toBeUndefined();
      expect((await channels().getOwned(keyId, 'chn_b'))?.secrets).toBe('enc:v1:sealed');
      expect(await channels().countByKey(keyId)).toBe(2);
      expect((await channels().defaults(keyId)).map((c) => c.id)).toEqual(['chn_a']);
      expect(await channels().defaults(otherKey)).toEqual([]);
      // getMany: only the key's, in the order asked
      expect((await channels().getMany(keyId, ['chn_b', 'chn_c', 'chn_a', 'chn_x'])).map((c) => c.id)).toEqual([
        'chn_b',
        'chn_a',
      ]);
      expect(await channels().getMany(keyId, [])).toEqual([]);
    });

    it('update replaces the settings of the key’s channel only; delete removes it', async () => {
      await channels().insert(newChannel(keyId, 'chn_a'), at(0));
      await channels().update(newChannel(otherKey, 'chn_a', { name: 'stolen' }), at(500));
      expect((await channels().get('chn_a'))?.name).toBe('Channel chn_a');
      await channels().update(
        newChannel(keyId, 'chn_a', { name: 'Renamed', default: true, secrets: 'enc:v1:other' }),
        at(1000),
      );
      const c = (await channels().get('chn_a'))!;
      expect([c.name, c.default, c.secrets, c.createdAt, c.updatedAt]).toEqual([
        'Renamed',
        true,
        'enc:v1:other',
        at(0).toISOString(),
        at(1000).toISOString(),
      ]);
      await channels().delete('chn_a');
      expect(await channels().get('chn_a')).toBeUndefined();
    });

    it('a deleted channel leaves the channels of the monitors that listed it', async () => {
      const listing = await seedMonitor(backend, keyId, at(0));
      const other = await seedMonitor(backend, keyId, at(0));
      const stored = (await backend.stores.monitors.get(listing))!;
      await backend.stores.monitors.update(
        listing,
        { ...stored.settings, channels: ['chn_a', 'chn_b'] },
        stored.baseUrl,
        false,
        at(1),
      );
      await backend.stores.monitors.update(
        other,
        { ...stored.settings, channels: ['chn_b'] },
        stored.baseUrl,
        false,
        at(1),
      );
      expect(await backend.stores.monitors.removeChannel(keyId, 'chn_a')).toBe(1);
      expect((await backend.stores.monitors.get(listing))!.settings.channels).toEqual(['chn_b']);
      expect(await backend.stores.monitors.removeChannel(otherKey, 'chn_b')).toBe(0);
      expect(await backend.stores.monitors.removeChannel(keyId, 'chn_b')).toBe(2);
      expect((await backend.stores.monitors.get(other))!.settings.channels).toEqual([]);
    });

    it('a channel delivery keeps its channel, hold and batch; list filters by channel', async () => {
      const batch = 'chn_a@2026-11-22T11:00:00.000Z';
      await seedDelivery(backend, keyId, at(0), {
        id: 'dlv_held',
        channel: { channelId: 'chn_a', channelType: 'slack', heldFor: 'digest', batch, releaseAt: at(3600_000) },
      });
      await seedDelivery(backend, keyId, at(0), {
        id: 'dlv_now',
        channel: { channelId: 'chn_b', channelType: 'email' },
      });
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_hook' });
      const held = (await backend.stores.deliveries.get(keyId, 'dlv_held'))!;
      expect(held).toMatchObject({ channelId: 'chn_a', channelType: 'slack', heldFor: 'digest', batch });
      expect(held.nextAttemptAt).toBe(at(3600_000).toISOString());
      expect(await backend.stores.deliveries.get(keyId, 'dlv_hook')).not.toHaveProperty('channelId');
      const list = await backend.stores.deliveries.list(keyId, { channelId: 'chn_a', limit: 10 });
      expect(list.map((d) => d.id)).toEqual(['dlv_held']);
      // Only what is due is claimed: the held one waits for its release.
      expect((await backend.stores.deliveries.claimDue(10, LEASE, at(1000))).map((d) => d.id).sort()).toEqual([
        'dlv_hook',
        'dlv_now',
      ]);
    });

    it('claimBatch leases the due, unleased rest of a batch, and nothing of another batch', async () => {
      const batch = 'chn_a@2026-11-22T11:00:00.000Z';
      const release = at(3600_000);
      for (const id of ['dlv_1', 'dlv_2', 'dlv_3'])
        await seedDelivery(backend, keyId, at(0), {
          id,
          channel: { channelId: 'chn_a', channelType: 'webhook', heldFor: 'digest', batch, releaseAt: release },
        });
      await seedDelivery(backend, keyId, at(0), {
        id: 'dlv_other',
        channel: {
          channelId: 'chn_a',
          channelType: 'webhook',
          heldFor: 'digest',
          batch: 'chn_a@later',
          releaseAt: release,
        },
      });
      expect(await backend.stores.deliveries.claimBatch(batch, LEASE, at(1000))).toEqual([]); // not released yet
      const [first] = await backend.stores.deliveries.claimDue(1, LEASE, release);
      expect(first!.batch).toBe(batch);
      const rest = await backend.stores.deliveries.claimBatch(batch, LEASE, release);
      expect(rest.map((d) => d.id).sort()).toEqual(['dlv_1', 'dlv_2', 'dlv_3'].filter((id) => id !== first!.id));
      expect(await backend.stores.deliveries.claimBatch(batch, LEASE, release)).toEqual([]); // all leased now
      // An attempt's record ends the hold.
      await backend.stores.deliveries.recordAttempt(
        first!,
        { startedAt: release, durationMs: 5, status: 'succeeded' },
        release,
      );
      expect(await backend.stores.deliveries.get(keyId, first!.id)).not.toHaveProperty('heldFor');
    });

    it('failForChannel fails the channel’s pending deliveries not in flight; stopForUrl keys on the channel', async () => {
      const ch = (channelId: string) => ({
        channel: { channelId, channelType: 'slack' },
        url: 'https://hooks.test/••••',
      });
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_a1', ...ch('chn_a') });
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_a2', ...ch('chn_a') });
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_b1', ...ch('chn_b') });
      await seedDelivery(backend, keyId, at(0), { id: 'dlv_b2', ...ch('chn_b') });
      const a1 = (await backend.stores.deliveries.get(keyId, 'dlv_a1'))!;
      // Same masked url on two channels: a 410 from chn_a stops chn_a only.
      expect(await backend.stores.deliveries.stopForUrl(a1, 'gone')).toBe(1);
      expect((await backend.stores.deliveries.get(keyId, 'dlv_a2'))!.status).toBe('failed');
      expect((await backend.stores.deliveries.get(keyId, 'dlv_b1'))!.status).toBe('pending');
      expect(await backend.stores.deliveries.failForChannel('chn_b', 'deleted')).toBe(2);
      expect((await backend.stores.deliveries.get(keyId, 'dlv_b2'))!).toMatchObject({
        status: 'failed',
        lastError: 'deleted',
      });
    });
  });
}
