// Every store contract, run on the SQLite backend (a fresh migrated file per suite).
// Each store's suite is one line: `<store>Contract(openSqliteBackend);`
import { describe, expect, it } from 'vitest';
import { idempotencyKeysContract } from './idempotency-keys.contract.js';
import { jobsContract } from './jobs.contract.js';
import { openSqliteBackend } from './sqlite-backend.js';

describe('SQLite backend', () => {
  it('answers a ping and closes', async () => {
    const { backend, close } = await openSqliteBackend();
    expect(await backend.ping()).toBe(true);
    await close();
  });
});

jobsContract(openSqliteBackend);
idempotencyKeysContract(openSqliteBackend);
