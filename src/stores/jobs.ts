// INTERIM (issue 12 skeleton): the async interface of the jobs store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { JobStore as SyncJobStore } from '../db/jobs.js';
import type { Async } from './async.js';

export type * from '../db/jobs.js';

export type JobStore = Async<SyncJobStore>;
