// INTERIM (issue 12 skeleton): the async interface of the webhook-deliveries store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { DeliveryStore as SyncDeliveryStore } from '../db/webhook-deliveries.js';
import type { Async } from './async.js';

export type * from '../db/webhook-deliveries.js';

export type DeliveryStore = Async<SyncDeliveryStore>;
