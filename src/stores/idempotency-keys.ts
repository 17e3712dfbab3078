// INTERIM (issue 12 skeleton): the async interface of the idempotency-keys store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { IdempotencyKeyStore as SyncIdempotencyKeyStore } from '../db/idempotency-keys.js';
import type { Async } from './async.js';

export type * from '../db/idempotency-keys.js';

export type IdempotencyKeyStore = Async<SyncIdempotencyKeyStore>;
