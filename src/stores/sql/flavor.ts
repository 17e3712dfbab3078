// The pieces of SQL the shared Kysely stores (src/stores/sql/*.ts) cannot write once for both databases. One
// set of store classes runs on SQLite and on PostgreSQL; where the dialects differ, a store asks its
// flavor: the two claims (SQLite serialises writers, PostgreSQL needs row locks that skip each other),
// the two-argument max (MAX(a, b) on SQLite, GREATEST(a, b) on PostgreSQL) and SQLite's index hints
// (INDEXED BY, a unary `+` that keeps a column off an index; PostgreSQL has neither, and `+text` is an
// error there). sqliteFlavor keeps the SQL the stores ran before byte for byte:
// test/unit/sqlite-query-plans.test.ts checks that its hot statements still read their partial indexes.
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { claimSql, type ClaimParams, type JobRow } from './fair-claim.js';
import { pgClaimSql } from './postgres/claims.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface SqlFlavor {
  readonly name: DatabaseKind;
  /** The fair jobs claim (fair-claim.ts): one statement that marks the claimed jobs running and returns them. */
  claimJobs(p: ClaimParams): RawBuilder<JobRow>;
  /**
   * The due-deliveries select inside the deliveries claim, made safe for claimers on other connections:
   * on PostgreSQL it locks the rows it picks and skips those another claimer holds; SQLite has one writer.
   */
  lockSkipping<DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** The larger of two values of one row (not the aggregate). */
  max2<T>(a: RawBuilder<T>, b: RawBuilder<T>): RawBuilder<T>;
  /** A column that must not steer the planner to its index (SQLite's unary plus; plain elsewhere). */
  unindexed(column: string): RawBuilder<string>;
}

export const sqliteFlavor: SqlFlavor = {
  name: 'sqlite',
  claimJobs: claimSql,
  lockSkipping: (qb) => qb,
  max2: (a, b) => sql`MAX(${a}, ${b})`,
  unindexed: (column) => sql.raw(`+${column}`),
};

export const postgresFlavor: SqlFlavor = {
  name: 'postgres',
  claimJobs: pgClaimSql,
  lockSkipping: (qb) => qb.forUpdate().skipLocked(),
  max2: (a, b) => sql`GREATEST(${a}, ${b})`,
  unindexed: (column) => sql.raw(column),
};
