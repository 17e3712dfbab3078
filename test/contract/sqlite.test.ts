// Every store contract, run on the SQLite backend (a fresh migrated file per suite).
// Each store's suite is one line: `<store>Contract(openSqliteBackend);`
import { describe, expect, it } from 'vitest';
import { capturesContract } from './captures.contract.js';
import { concurrencyContract } from './concurrency.contract.js';
import { feedsContract } from './feeds.contract.js';
import { monitorsContract } from './monitors.contract.js';
import { nodesContract } from './nodes.contract.js';
import { apiKeysContract } from './api-keys.contract.js';
import { keyDataContract } from './key-data.contract.js';
import { retentionContract } from './retention.contract.js';
import { statusReadsContract } from './status-reads.contract.js';
import { idempotencyKeysContract } from './idempotency-keys.contract.js';
import { jobsContract } from './jobs.contract.js';
import { loginsContract } from './logins.contract.js';
import { openSharedSqlite, openSqliteBackend } from './sqlite-backend.js';
import { channelsContract } from './channels.contract.js';
import { webhookDeliveriesContract } from './webhook-deliveries.contract.js';

describe('SQLite backend', () => {
  it('answers a ping and closes', async () => {
    const { backend, close } = await openSqliteBackend();
    expect(await backend.ping()).toBe(true);
    await close();
  });
});

monitorsContract(openSqliteBackend);
capturesContract(openSqliteBackend);
apiKeysContract(openSqliteBackend);
webhookDeliveriesContract(openSqliteBackend);
channelsContract(openSqliteBackend);
keyDataContract(openSqliteBackend);
retentionContract(openSqliteBackend);
jobsContract(openSqliteBackend);
idempotencyKeysContract(openSqliteBackend);
concurrencyContract(openSharedSqlite);
nodesContract(openSqliteBackend);
statusReadsContract(openSqliteBackend);
loginsContract(openSqliteBackend);
feedsContract(openSqliteBackend);
