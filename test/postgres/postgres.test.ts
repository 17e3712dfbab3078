// Every store contract, run on the PostgreSQL backend: one fresh migrated database for this file (dropped
// at the end), emptied before each test. Each store's suite is one line, as in sqlite.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePostgres, freshDatabase, type FreshDatabase } from '../helpers/postgres.js';
import { apiKeysContract } from '../contract/api-keys.contract.js';
import { capturesContract } from '../contract/captures.contract.js';
import { concurrencyContract } from '../contract/concurrency.contract.js';
import { feedsContract } from '../contract/feeds.contract.js';
import { idempotencyKeysContract } from '../contract/idempotency-keys.contract.js';
import { jobsContract } from '../contract/jobs.contract.js';
import { loginsContract } from '../contract/logins.contract.js';
import { keyDataContract } from '../contract/key-data.contract.js';
import { monitorsContract } from '../contract/monitors.contract.js';
import { migrateAt, postgresOpener, postgresSharedOpener } from '../contract/postgres-backend.js';
import { retentionContract } from '../contract/retention.contract.js';
import { statusReadsContract } from '../contract/status-reads.contract.js';
import { channelsContract } from '../contract/channels.contract.js';
import { webhookDeliveriesContract } from '../contract/webhook-deliveries.contract.js';

describePostgres('PostgreSQL backend', () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await migrateAt(db.url);
  });
  afterAll(() => db?.drop());
  const open = postgresOpener(() => db.url);

  describe('backend', () => {
    it('answers a ping and closes', async () => {
      const opened = await open();
      expect(await opened.backend.ping()).toBe(true);
      await opened.close();
    });
  });

  monitorsContract(open);
  capturesContract(open);
  apiKeysContract(open);
  webhookDeliveriesContract(open);
  channelsContract(open);
  keyDataContract(open);
  retentionContract(open);
  jobsContract(open);
  idempotencyKeysContract(open);
  statusReadsContract(open);
  loginsContract(open);
  feedsContract(open);
  concurrencyContract(postgresSharedOpener(() => db.url));
});
