// Server-side prepared statements for the statements the service runs over and over (claims, polls,
// ticks). node-postgres sends a query with parameters as an unnamed statement, which PostgreSQL plans
// again on every run: the fair claim takes 1-4 ms to plan and under 1 ms to run. Named, it is parsed once
// per connection, and after a few runs PostgreSQL keeps a generic plan. The name is a hash of the text,
// so the same statement gets the same name on every connection; each connection names at most
// MAX_NAMED statements (the shapes the stores build are few; a text built with a varying number of
// parameters must not grow a connection's statements without end), later ones run unnamed as before.
// A schema change by a newer node (a rolling upgrade) can make a kept statement fail once with "cached
// plan must not change result type" (0A000): it is then renamed, so its next run prepares it anew.
// PgBouncer in transaction mode before 1.21 does not carry prepared statements between server
// connections: `database.preparedStatements: false` turns this off (docs/postgresql.md).
import { createHash } from 'node:crypto';
import type pg from 'pg';

const MAX_NAMED = 500;
const named = Symbol('pagewatch.namedStatements');

type Patchable = pg.PoolClient & { [named]?: Map<string, string> };
/** "cached plan must not change result type" */
const STALE_PLAN = '0A000';
type QueryArgs = [unknown, unknown?, unknown?];

/** Make `client` name each parameterised statement it runs (a statement is a text plus a values array). */
export function prepareStatements(client: pg.PoolClient): void {
  const c = client as Patchable;
  if (c[named]) return;
  const names = new Map<string, string>(); // text's hash → the statement's name on this connection
  c[named] = names;
  let renamed = 0;
  const query = client.query.bind(client) as (...args: QueryArgs) => unknown;
  (client as { query: unknown }).query = (...args: QueryArgs): unknown => {
    const [text, values, callback] = args;
    // Only a single statement with its values array (what Kysely and the stores send); a text without
    // values may hold several statements (migrations), which a prepared statement cannot.
    if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined) return query(...args);
    const hash = createHash('sha1').update(text).digest('hex').slice(0, 24);
    let name = names.get(hash);
    if (name === undefined) {
      if (names.size >= MAX_NAMED) return query(...args);
      name = `pw_${hash}`;
      names.set(hash, name);
    }
    return (query({ name, text, values }) as Promise<unknown>).catch((err: unknown) => {
      if ((err as { code?: string }).code === STALE_PLAN) names.set(hash, `pw_${hash}_${++renamed}`);
      throw err;
    });
  };
}
