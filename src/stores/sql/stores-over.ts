// The stores over one executor — the database, or one transaction of it — on either database: the
// same Kysely store classes, with the flavor supplying what the dialects write differently.
import type { Kysely, Transaction } from 'kysely';
import type { ChangeTopic, Stores } from '../backend.js';
import { SqlApiKeyStore } from './api-keys.js';
import { SqlCaptureStore } from './captures.js';
import { SqlChannelStore } from './channels.js';
import { SqlFeedStore } from './feeds.js';
import type { SqlFlavor } from './flavor.js';
import { SqlIdempotencyKeyStore } from './idempotency-keys.js';
import { SqlJobStore } from './jobs.js';
import { SqlKeyDataStore } from './key-data.js';
import { SqlLoginStore } from './logins.js';
import { SqlMonitorStore } from './monitors.js';
import { SqlNodeStore } from './nodes.js';
import { SqlRecordRetention } from './retention.js';
import type { DB } from './schema.js';
import { SqlStatusReads } from './status-reads.js';
import { SqlDeliveryStore } from './webhook-deliveries.js';

/** Tells the backend a change others wait for was written (emitted now, or after commit in a transaction). */
export type Notify = (topic: ChangeTopic) => void;

export function storesOver(exec: Kysely<DB> | Transaction<DB>, notify: Notify, flavor: SqlFlavor): Stores {
  return {
    keys: new SqlApiKeyStore(exec, notify),
    jobs: new SqlJobStore(exec, notify, flavor),
    idempotency: new SqlIdempotencyKeyStore(exec),
    deliveries: new SqlDeliveryStore(exec, notify, flavor),
    monitors: new SqlMonitorStore(exec, notify),
    logins: new SqlLoginStore(exec),
    captures: new SqlCaptureStore(exec, notify),
    channels: new SqlChannelStore(exec),
    feeds: new SqlFeedStore(exec),
    keyData: new SqlKeyDataStore(exec, notify),
    retention: new SqlRecordRetention(exec),
    nodes: new SqlNodeStore(exec),
    statusReads: new SqlStatusReads(exec),
  };
}
