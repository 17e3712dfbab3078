// Records every statement run on a SQLite connection (Kysely prepares each one) with its parameters, and
// reads their plans with EXPLAIN QUERY PLAN: the query-plan tests use it to check that hot statements
// read through an index.
import type { Db } from '../../src/stores/sql/sqlite/connection.js';

export interface Statement {
  sql: string;
  params: unknown[];
}

/** From now on, every statement `db` runs (all, get, run) is appended to the returned list. */
export function recordStatements(db: Db): Statement[] {
  const seen: Statement[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const stmt = prepare(source);
    return new Proxy(stmt, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (name === 'all' || name === 'run' || name === 'get') seen.push({ sql: source, params: args.flat() });
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }) as typeof db.prepare;
  return seen;
}

/** SQLite's plan of one recorded statement, a line per step. */
export function planOf(db: Db, s: Statement): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${s.sql}`).all(...s.params) as { detail: string }[]).map((r) => r.detail);
}
