// What a node runs, by its role (setting `role`, or `pagewatch serve --role`):
// - all: everything (one node, as before clusters);
// - api: the HTTP API and pages, the browser and egress proxy (synchronous renders); async submits and
//   monitor changes only write rows, which the worker nodes pick up;
// - worker: the job worker, monitor schedules, webhook dispatcher and sweeper, with the browser they
//   render with; its HTTP server answers only /health, /ready and /metrics.
import { together, type Lifecycle } from '../lifecycle.js';
import { NODE_ROLES, type NodeRole } from '../domain/node-role.js';

export interface RoleParts {
  /** The whole HTTP API and pages; else only the probes (/health, /ready, /metrics). */
  api: boolean;
  /** Job worker, monitor scheduler, webhook dispatcher and sweeper. */
  background: boolean;
}

export function partsOf(role: NodeRole): RoleParts {
  return { api: role !== 'worker', background: role !== 'api' };
}

export function isRole(value: string): value is NodeRole {
  return (NODE_ROLES as readonly string[]).includes(value);
}

/** The long-lived parts of a node, whatever its role. */
export interface NodeParts {
  heartbeat: Lifecycle;
  proxy: Lifecycle;
  browsers: Lifecycle;
  diffPool: Lifecycle;
  dispatcher: Lifecycle;
  sweeper: Lifecycle;
  worker: Lifecycle;
  scheduler: Lifecycle;
  http: Lifecycle;
}

/**
 * The node's start order; serve.ts starts them one after the other and stops them in reverse, all by
 * one deadline (shutdownGraceMs), then closes the database.
 *
 * The node's registry row is written first and removed last. The proxy before the browser (it connects
 * through it); a browser that cannot start is logged and the service runs on without it. The schedules
 * start before the HTTP server (a PATCH must not meet a half-read schedule list), and the three stop
 * together: the schedules queue nothing more while the HTTP server and the job worker stop taking work
 * and drain the same renders (unfinished jobs go back to the queue). Then the sweeper, the webhook
 * attempts in flight, the diff threads, the browser and the proxy stop. An api node runs no background
 * part: its async submits and monitor changes only write rows.
 */
export function lifecyclesOf(role: NodeRole, p: NodeParts): Lifecycle[] {
  if (!partsOf(role).background) return [p.heartbeat, p.proxy, p.browsers, p.http];
  return [
    p.heartbeat,
    p.proxy,
    p.browsers,
    p.diffPool,
    p.dispatcher,
    p.sweeper,
    together('job worker, monitor schedules and http server', [p.worker, p.scheduler, p.http]),
  ];
}
