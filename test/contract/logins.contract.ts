// The saved-logins store's contract, for any backend: a monitor's login is saved, read back field for
// field, replaced, read by its key only, forgotten, and goes with its monitor. Captures keep what they
// did with it (captures.login).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import type { SavedLoginRecord } from '../../src/stores/logins.js';
import { capture, newKey, newMonitor } from './monitor-fixtures.js';

export function loginsContract(open: () => Promise<{ backend: Backend; close(): Promise<void> }>) {
  describe('saved logins store', () => {
    let opened: { backend: Backend; close(): Promise<void> };
    let keyId: string;
    beforeEach(async () => {
      opened = await open();
      keyId = await newKey(opened.backend);
      await newMonitor(opened.backend, keyId, 'mon_login1', '2026-11-22T10:00:00.000Z');
    });
    afterEach(() => opened.close());
    const store = () => opened.backend.stores.logins;
    const login = (over: Partial<SavedLoginRecord> = {}): SavedLoginRecord => ({
      monitorId: 'mon_login1',
      keyId,
      state: 'enc:v1:sealed',
      origins: ['http://127.0.0.1:4000', 'https://login.example'],
      savedAt: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-11-29T10:00:00.000Z',
      ...over,
    });

    it('reads back what was saved, field for field; none before', async () => {
      expect(await store().get('mon_login1')).toBeUndefined();
      await store().put(login());
      expect(await store().get('mon_login1')).toEqual(login());
    });

    it('a second save replaces the first', async () => {
      await store().put(login());
      const newer = login({ state: 'enc:v1:other', origins: ['http://a.test'], savedAt: '2026-11-23T00:00:00.000Z' });
      await store().put(newer);
      expect(await store().get('mon_login1')).toEqual(newer);
    });

    it("is read by its own key only: another key's read finds nothing", async () => {
      await store().put(login());
      const other = await newKey(opened.backend, 'other');
      expect(await store().getOwned(keyId, 'mon_login1')).toEqual(login());
      expect(await store().getOwned(other, 'mon_login1')).toBeUndefined();
    });

    it('forget removes it and says whether there was one', async () => {
      await store().put(login());
      expect(await store().forget('mon_login1')).toBe(true);
      expect(await store().get('mon_login1')).toBeUndefined();
      expect(await store().forget('mon_login1')).toBe(false);
    });

    it('goes with its monitor', async () => {
      await store().put(login());
      await opened.backend.stores.monitors.delete('mon_login1');
      expect(await store().get('mon_login1')).toBeUndefined();
    });

    it('a capture keeps what it did with the login; one without says nothing', async () => {
      const { captures } = opened.backend.stores;
      await captures.insert(capture('cap_l1', 'mon_login1', '2026-11-22T10:01:00.000Z', { login: 'reused' }));
      await captures.insert(capture('cap_l2', 'mon_login1', '2026-11-22T10:02:00.000Z'));
      expect((await captures.getOwned(keyId, 'cap_l1'))?.login).toBe('reused');
      expect(await captures.getOwned(keyId, 'cap_l2')).not.toHaveProperty('login');
    });
  });
}
