// This node in the node registry (src/stores/nodes.ts): its row is written at start, its heartbeat
// refreshed every HEARTBEAT_MS, and the row removed on a clean stop. Rows whose heartbeat stopped a day
// ago (nodes that died) are deleted by whichever node gets there. A missed beat is logged and retried.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { NodeRecord, NodeStore } from '../stores/nodes.js';
import type { NodeRole } from '../domain/node-role.js';

export const HEARTBEAT_MS = 5000;
/** A node whose heartbeat is older than this is shown `alive: false` (three missed beats). */
export const ALIVE_WITHIN_MS = 3 * HEARTBEAT_MS;
const FORGET_AFTER_MS = 86_400_000;
/** Stale rows are looked for on every this-many beats (about once a minute), not on each one. */
const CLEANUP_EVERY_BEATS = 12;

export function nodeId(): string {
  return `node_${randomBytes(8).toString('hex')}`;
}

export interface NodeHeartbeatOptions {
  nodes: NodeStore;
  node: { id: string; role: NodeRole; version: string; startedAt: Date };
  log: Logger;
  /** HEARTBEAT_MS unless a test beats faster. */
  intervalMs?: number;
  now?: () => Date;
}

export class NodeHeartbeat implements Lifecycle {
  readonly name = 'node registry heartbeat';
  private timer: NodeJS.Timeout | undefined;
  private beats = 0;
  private beating: Promise<void> | undefined;

  private readonly options: Required<NodeHeartbeatOptions>;

  constructor(options: NodeHeartbeatOptions) {
    this.options = { intervalMs: HEARTBEAT_MS, now: () => new Date(), ...options };
  }

  get node(): NodeHeartbeatOptions['node'] {
    return this.options.node;
  }

  private record(at: Date): NodeRecord {
    const { id, role, version, startedAt } = this.node;
    return {
      id,
      role,
      host: hostname(),
      pid: process.pid,
      version,
      startedAt: startedAt.toISOString(),
      heartbeatAt: at.toISOString(),
    };
  }

  async start(): Promise<void> {
    const now = this.options.now();
    await this.options.nodes.register(this.record(now));
    await this.cleanUp(now);
    this.timer = setInterval(() => {
      this.beating ??= this.beat().finally(() => (this.beating = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** One heartbeat; never throws. A row deleted meanwhile (this node was unreachable for a day) is written again. */
  async beat(): Promise<void> {
    const now = this.options.now();
    try {
      if (!(await this.options.nodes.heartbeat(this.node.id, now))) await this.options.nodes.register(this.record(now));
      if (++this.beats % CLEANUP_EVERY_BEATS === 0) await this.cleanUp(now);
    } catch (err) {
      this.options.log.warn({ err }, 'node heartbeat failed; the next one tries again');
    }
  }

  async stop(_deadline: number): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    try {
      await this.options.nodes.remove(this.node.id);
    } catch (err) {
      this.options.log.warn({ err }, 'could not remove this node from the registry (its row will show it not alive)');
    }
  }

  private async cleanUp(now: Date): Promise<void> {
    const deleted = await this.options.nodes.deleteStale(new Date(now.getTime() - FORGET_AFTER_MS));
    if (deleted) this.options.log.info({ nodes: deleted }, 'removed nodes whose heartbeat stopped a day ago');
  }
}
