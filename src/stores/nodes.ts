// The node registry: every running service process (a node) over this database, as its own row says.
// A node writes its row at start, refreshes its heartbeat every few seconds and removes the row on a
// clean stop; one that died leaves a row whose heartbeat has stopped (shown not alive, deleted later).
import type { NodeRole } from '../domain/node-role.js';

export interface NodeRecord {
  id: string;
  role: NodeRole;
  /** os.hostname() of the machine (or container) it runs on. */
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  heartbeatAt: string;
}

export interface NodeStore {
  /** Write this node's row (again, if it was deleted while the node was unreachable). */
  register(node: NodeRecord): Promise<void>;
  /** Refresh the heartbeat; false if the row is gone (deleted as stale): the caller registers again. */
  heartbeat(id: string, at: Date): Promise<boolean>;
  remove(id: string): Promise<void>;
  /** Every row, oldest start first (then id). */
  list(): Promise<NodeRecord[]>;
  /** Delete rows whose heartbeat is older than `before`; how many. */
  deleteStale(before: Date): Promise<number>;
}
