// INTERIM (issue 12 skeleton): the async interface of the key-data store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { KeyDataStore as SyncKeyDataStore } from '../db/key-data.js';
import type { Async } from './async.js';

export type * from '../db/key-data.js';

export type KeyDataStore = Async<SyncKeyDataStore>;
