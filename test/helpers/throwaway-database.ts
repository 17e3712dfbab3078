// A database for a cluster (cluster.ts) on a fault test's own server (throwaway-postgres.ts): the nodes
// share it while the test stops and restarts the server under them. Dropping the server drops it too.
import pg from 'pg';
import type { FreshDatabase } from './postgres.js';
import type { ThrowawayPostgres } from './throwaway-postgres.js';

export async function databaseOn(server: ThrowawayPostgres, name = 'pagewatch'): Promise<FreshDatabase> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => Promise.resolve() };
}
