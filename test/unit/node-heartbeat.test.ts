// This node in the registry, over a real SQLite file: written at start, beaten, written again if its
// row was deleted meanwhile, removed at stop; day-old rows of dead nodes are deleted; and /api/status's
// `alive` is a heartbeat at most three intervals (15 s) old.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/stores/sql/migrate.js';
import { openDatabase } from '../../src/stores/sql/sqlite/connection.js';
import { SqliteBackend } from '../../src/stores/sql/sqlite/backend.js';
import { createLogger } from '../../src/log.js';
import { ALIVE_WITHIN_MS, HEARTBEAT_MS, NodeHeartbeat, nodeId } from '../../src/operations/node-heartbeat.js';
import { statusSnapshot } from '../../src/operations/status.js';
import { projectRoot } from '../../src/project-root.js';

let dir: string;
let backend: SqliteBackend;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pagewatch-heartbeat-'));
  const db = openDatabase(join(dir, 'test.db'));
  migrate(db, readMigrations(resolve(projectRoot(), 'migrations', 'sqlite')));
  backend = new SqliteBackend(db);
});
afterEach(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = new Date('2026-03-01T10:00:00.000Z');

it('registers at start, beats, registers again when its row was deleted, and is removed at stop', async () => {
  const nodes = backend.stores.nodes;
  let now = T0;
  const node = { id: nodeId(), role: 'worker' as const, version: '9.9.9', startedAt: T0 };
  const heartbeat = new NodeHeartbeat({ nodes, node, log: createLogger('silent'), intervalMs: 60_000, now: () => now });
  // A node that died two days ago, and one whose heartbeat stopped just under a day ago.
  const dead = { role: 'all' as const, host: 'h', pid: 1, version: '0.1.0', startedAt: '2026-02-01T00:00:00.000Z' };
  await nodes.register({ ...dead, id: 'node_dead', heartbeatAt: '2026-02-27T10:00:00.000Z' });
  await nodes.register({ ...dead, id: 'node_recent', heartbeatAt: '2026-02-28T10:00:01.000Z' });

  await heartbeat.start();
  expect((await nodes.list()).map((n) => n.id)).toEqual(['node_recent', node.id]); // the day-old one is gone
  expect((await nodes.list())[1]).toMatchObject({ role: 'worker', version: '9.9.9', pid: process.pid });

  now = new Date(T0.getTime() + HEARTBEAT_MS);
  await heartbeat.beat();
  expect((await nodes.list())[1]!.heartbeatAt).toBe(now.toISOString());

  await nodes.remove(node.id); // e.g. deleted as stale while this node could not reach the database
  now = new Date(T0.getTime() + 2 * HEARTBEAT_MS);
  await heartbeat.beat();
  expect((await nodes.list()).find((n) => n.id === node.id)?.heartbeatAt).toBe(now.toISOString());

  await heartbeat.stop(Date.now());
  expect((await nodes.list()).map((n) => n.id)).toEqual(['node_recent']);
});

it('/api/status shows a node alive while its heartbeat is at most 15 s old', async () => {
  expect(ALIVE_WITHIN_MS).toBe(3 * HEARTBEAT_MS);
  const now = T0;
  const beatAt = (msAgo: number) => new Date(now.getTime() - msAgo).toISOString();
  const base = { role: 'all' as const, host: 'h', pid: 1, version: '0.1.0', startedAt: beatAt(60_000) };
  await backend.stores.nodes.register({ ...base, id: 'node_a', heartbeatAt: beatAt(15_000) });
  await backend.stores.nodes.register({ ...base, id: 'node_b', heartbeatAt: beatAt(15_001) });
  const snapshot = await statusSnapshot(
    {
      version: '0.1.0',
      startedAt: now,
      node: { id: 'node_a', role: 'all' },
      browsers: {
        stats: () => ({ up: true, renders: 0, restarts: 0, warmPages: 0, pagesCreated: 0, pagesUnloaded: 0 }),
      },
      limiter: { activeCount: 0, queuedCount: 0 },
      limits: { concurrency: 1, queueSize: 1 },
      stores: backend.stores,
    },
    now,
  );
  expect(snapshot.node).toEqual({ id: 'node_a', role: 'all' });
  expect(snapshot.cluster.nodes.map((n) => [n.id, n.alive])).toEqual([
    ['node_a', true],
    ['node_b', false],
  ]);
  expect(Object.keys(snapshot.cluster.nodes[0]!).sort()).toEqual(
    ['alive', 'heartbeatAt', 'host', 'id', 'role', 'startedAt', 'version'].sort(),
  );
});
