// What "now" is. With several nodes on one database, leases, ticks and retries compare times written by
// different nodes, so every node reads them from one clock: the database's (src/operations/database-clock.ts).
export interface Clock {
  now(): Date;
}

/** This machine's clock: the database's too on SQLite (one machine), and for tests and tools. */
export const systemClock: Clock = { now: () => new Date() };
