// INTERIM (issue 12 skeleton): the async interface of the monitors store, for now the async face of the
// synchronous class. Its owner replaces this with an explicit interface and typed records, moved here.
import type { MonitorStore as SyncMonitorStore } from '../db/monitors.js';
import type { Async } from './async.js';

export type * from '../db/monitors.js';

export type MonitorStore = Async<SyncMonitorStore>;
