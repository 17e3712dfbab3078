// The node registry's contract (test/contract/nodes.contract.ts) on a real PostgreSQL: the same Kysely
// store over PostgresDialect, in a fresh database per suite with part C's migration applied. Until part
// A's backend lands this opens just the nodes store; at merge the contract joins A's PostgreSQL run.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { SqlNodeStore } from '../../src/stores/sql/nodes.js';
import type { DB } from '../../src/stores/sql/schema.js';
import type { Backend } from '../../src/stores/backend.js';
import { nodesContract } from '../contract/nodes.contract.js';
import { applyClusterMigration } from '../helpers/cluster-migration.js';
import { describePostgres, freshDatabase } from '../helpers/postgres.js';

async function openNodesOnly(): Promise<{ backend: Backend; close(): Promise<void> }> {
  const database = await freshDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on('error', () => undefined); // idle connections closed by the drop
  await applyClusterMigration(pool);
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const backend = { stores: { nodes: new SqlNodeStore(kysely) } } as unknown as Backend;
  return {
    backend,
    async close() {
      await kysely.destroy(); // ends the pool
      await database.drop();
    },
  };
}

describePostgres('PostgreSQL', () => {
  nodesContract(openNodesOnly);
});
