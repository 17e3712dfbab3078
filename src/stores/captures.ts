// INTERIM (issue 12 skeleton): the async interface of the captures store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { CaptureStore as SyncCaptureStore } from '../db/captures.js';
import type { Async } from './async.js';

export type * from '../db/captures.js';

export type CaptureStore = Async<SyncCaptureStore>;
