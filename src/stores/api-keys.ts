// INTERIM (issue 12 skeleton): the async interface of the api-keys store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { ApiKeyStore as SyncApiKeyStore } from '../db/api-keys.js';
import type { Async } from './async.js';

export type * from '../db/api-keys.js';

export type ApiKeyStore = Async<SyncApiKeyStore>;
