// The api-keys store's contract: what any backend's `stores.keys` must do.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import type { Backend } from '../../src/stores/backend.js';
import { at } from './seed.js';

// `close` as a property: the suites keep it apart from its object.
type Open = () => Promise<{ backend: Backend; close: () => Promise<void> }>;

export function apiKeysContract(open: Open) {
  describe('api keys store', () => {
    let backend: Backend;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ backend, close } = await open());
    });
    afterEach(() => close());
    const keys = () => backend.stores.keys;

    it('create issues a key, its webhook secret and an id; the record keeps a prefix of the key, never the key', async () => {
      const issued = await keys().create('ci');
      expect(issued).toEqual({
        id: expect.stringMatching(/^key_[0-9a-f]{16}$/) as string,
        name: 'ci',
        key: expect.stringMatching(/^pw_live_[A-Za-z0-9_-]{32}$/) as string,
        webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) as string,
      });
      const record = await keys().get(issued.id);
      expect(record).toEqual({
        id: issued.id,
        name: 'ci',
        keyPrefix: issued.key.slice(0, 'pw_live_'.length + 4),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
        revokedAt: null,
        lastUsedAt: null,
      });
      expect(JSON.stringify(record)).not.toContain(issued.key);
      expect(JSON.stringify(record)).not.toContain(issued.webhookSecret);
    });

    it('findActive finds a key by its plaintext, and nothing for an unknown or a revoked one', async () => {
      const a = await keys().create('a');
      const b = await keys().create('b');
      expect((await keys().findActive(a.key))?.id).toBe(a.id);
      expect((await keys().findActive(b.key))?.id).toBe(b.id);
      expect(await keys().findActive(a.key + 'x')).toBeUndefined();
      expect(await keys().findActive(a.id)).toBeUndefined();
      await keys().revoke(a.id);
      expect(await keys().findActive(a.key)).toBeUndefined();
      expect((await keys().findActive(b.key))?.id).toBe(b.id);
    });

    it('get finds a key by id, revoked or not', async () => {
      const a = await keys().create('a');
      await keys().revoke(a.id, at(5));
      expect(await keys().get(a.id)).toMatchObject({ id: a.id, revokedAt: at(5).toISOString() });
      expect(await keys().get('key_missing')).toBeUndefined();
    });

    it('list gives every key, revoked too, by creation time then id', async () => {
      const made: IssuedKey[] = [];
      for (const name of ['one', 'two', 'three', 'four']) made.push(await keys().create(name));
      await keys().revoke(made[1]!.id);
      const listed = await keys().list();
      expect(listed.map((k) => k.name).sort()).toEqual(['four', 'one', 'three', 'two']);
      const order = [...listed].sort((x, y) =>
        x.createdAt === y.createdAt ? (x.id < y.id ? -1 : 1) : x.createdAt < y.createdAt ? -1 : 1,
      );
      expect(listed).toEqual(order);
      expect(listed.find((k) => k.id === made[1]!.id)?.revokedAt).not.toBeNull();
    });

    it('revoke is true once, for an active key only', async () => {
      const a = await keys().create('a');
      expect(await keys().revoke(a.id, at(1))).toBe(true);
      expect(await keys().revoke(a.id, at(2))).toBe(false);
      expect((await keys().get(a.id))?.revokedAt).toBe(at(1).toISOString()); // the first revocation stays
      expect(await keys().revoke('key_missing')).toBe(false);
    });

    it('touch records the last use', async () => {
      const a = await keys().create('a');
      await keys().touch(a.id, at(7));
      expect((await keys().get(a.id))?.lastUsedAt).toBe(at(7).toISOString());
      await keys().touch(a.id, at(9));
      expect((await keys().get(a.id))?.lastUsedAt).toBe(at(9).toISOString());
    });

    it('signingSecrets: the issued secret; nothing for an unknown key', async () => {
      const a = await keys().create('a');
      expect(await keys().signingSecrets(a.id, at(0))).toEqual([a.webhookSecret]);
      expect(await keys().signingSecrets('key_missing', at(0))).toEqual([]);
    });

    it('rotateSecret: the new secret signs first, the old one beside it until the grace period ends', async () => {
      const a = await keys().create('a');
      const fresh = await keys().rotateSecret(a.id, 3600_000, at(0));
      expect(fresh).toMatch(/^whsec_/);
      expect(fresh).not.toBe(a.webhookSecret);
      expect(await keys().signingSecrets(a.id, at(0))).toEqual([fresh, a.webhookSecret]);
      expect(await keys().signingSecrets(a.id, at(3600_000 - 1))).toEqual([fresh, a.webhookSecret]);
      // The grace period ends at exactly now + grace.
      expect(await keys().signingSecrets(a.id, at(3600_000))).toEqual([fresh]);
    });

    it('rotateSecret twice: only the secret just replaced keeps signing; a grace of 0 leaves the new one alone', async () => {
      const a = await keys().create('a');
      const second = await keys().rotateSecret(a.id, 3600_000, at(0));
      const third = await keys().rotateSecret(a.id, 3600_000, at(10));
      expect(await keys().signingSecrets(a.id, at(20))).toEqual([third, second]);
      const fourth = await keys().rotateSecret(a.id, 0, at(30));
      expect(await keys().signingSecrets(a.id, at(30))).toEqual([fourth]);
    });

    it('rotateSecret refuses an unknown or a revoked key, and leaves its secrets as they were', async () => {
      const a = await keys().create('a');
      await keys().revoke(a.id);
      expect(await keys().rotateSecret(a.id, 3600_000, at(0))).toBeUndefined();
      expect(await keys().signingSecrets(a.id, at(0))).toEqual([a.webhookSecret]);
      expect(await keys().rotateSecret('key_missing', 3600_000, at(0))).toBeUndefined();
    });

    it('inside a transaction: a key created there exists after commit, and not after a rollback', async () => {
      const kept = await backend.transaction((tx) => tx.keys.create('kept'));
      const failing = backend.transaction(async (tx) => {
        const made = await tx.keys.create('dropped');
        expect((await tx.keys.get(made.id))?.name).toBe('dropped');
        throw new Error('roll back');
      });
      await expect(failing).rejects.toThrow('roll back');
      expect((await keys().list()).map((k) => k.id)).toEqual([kept.id]);
    });
  });
}
