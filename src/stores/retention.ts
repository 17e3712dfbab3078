// INTERIM (issue 12 skeleton): the async interface of the retention store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { RecordRetention as SyncRecordRetention } from '../db/retention.js';
import type { Async } from './async.js';

export type * from '../db/retention.js';

export type RecordRetention = Async<SyncRecordRetention>;
