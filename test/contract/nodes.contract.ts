// The node registry's contract, for any backend: a node's row is written, refreshed, listed in start
// order, removed, and deleted once its heartbeat is older than a bound.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/stores/backend.js';
import type { NodeRecord } from '../../src/stores/nodes.js';

const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function node(id: string, startMs: number, role: NodeRecord['role'] = 'all'): NodeRecord {
  const startedAt = at(startMs).toISOString();
  return { id, role, host: 'host-1', pid: 4242, version: '0.1.0', startedAt, heartbeatAt: startedAt };
}

export function nodesContract(open: () => Promise<{ backend: Backend; close(): Promise<void> }>) {
  describe('nodes store', () => {
    let opened: { backend: Backend; close(): Promise<void> };
    beforeEach(async () => {
      opened = await open();
    });
    afterEach(() => opened.close());
    const store = () => opened.backend.stores.nodes;

    it('lists registered nodes oldest start first, with every field as written', async () => {
      await store().register(node('node_b', 5000, 'worker'));
      await store().register(node('node_a', 0, 'api'));
      expect(await store().list()).toEqual([node('node_a', 0, 'api'), node('node_b', 5000, 'worker')]);
    });

    it('a heartbeat moves heartbeatAt only; a heartbeat of a missing row says false', async () => {
      await store().register(node('node_a', 0));
      expect(await store().heartbeat('node_a', at(5000))).toBe(true);
      expect(await store().list()).toEqual([{ ...node('node_a', 0), heartbeatAt: at(5000).toISOString() }]);
      expect(await store().heartbeat('node_gone', at(5000))).toBe(false);
      expect(await store().list()).toHaveLength(1);
    });

    it('registering again (after the row was deleted or not) leaves one row', async () => {
      await store().register(node('node_a', 0));
      await store().register({ ...node('node_a', 0), heartbeatAt: at(9000).toISOString() });
      expect(await store().list()).toEqual([{ ...node('node_a', 0), heartbeatAt: at(9000).toISOString() }]);
    });

    it('removes one node; deletes the stale ones (heartbeat strictly before the bound)', async () => {
      await store().register(node('node_a', 0));
      await store().register(node('node_b', 1000));
      await store().register(node('node_c', 2000));
      await store().remove('node_c');
      expect(await store().deleteStale(at(1000))).toBe(1); // node_a; node_b's heartbeat is at the bound
      expect((await store().list()).map((n) => n.id)).toEqual(['node_b']);
    });
  });
}
