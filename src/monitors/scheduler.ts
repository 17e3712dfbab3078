// One node-cron task per active monitor. A tick only enqueues a capture job (fast, never throws); the
// job worker does the capture. Changes to a monitor take effect at once through `schedule`/`unschedule`.
// node-cron keeps its own time (Date and setTimeout): this node's clock. The scheduler's own decisions read
// the injected clock — the database's, shared by every node (src/operations/database-clock.ts): a tick
// node-cron fires before the clock reaches its time (this node's clock runs fast) waits until it does,
// so no node captures early; which stored next runs were missed while stopped is read from it too.
// With several nodes, a monitor may change through another node: the scheduler then reconciles its
// tasks with the database — on the backend's `monitors` change (another node's, on PostgreSQL) and every
// reconcileIntervalMs in any case, in case a notification was lost.
import cron, { type ScheduledTask } from 'node-cron';
import { AppError } from '../errors.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { Backend } from '../stores/backend.js';
import type { MonitorRecord, MonitorStore } from '../stores/monitors.js';
import type { MonitorRuns } from './runs.js';
import { systemClock, type Clock } from '../domain/clock.js';

export { systemClock, type Clock };

/** An api node's stand-in: the schedules live on the worker nodes, which reconcile with the database. */
export const schedulesElsewhere: Pick<MonitorScheduler, 'schedule' | 'unschedule'> = {
  schedule: () => Promise.resolve(),
  unschedule: () => undefined,
};

export interface ReconcileOptions {
  /** The backend's change events: a `monitors` change reconciles at once. */
  changes?: Backend['changes'];
  /** Reconcile this often anyway (monitors.reconcileIntervalMs); 0 = only on changes. */
  intervalMs?: number;
}

/** What a task was scheduled from: when any of it differs in the database, the task is made again. */
const stampOf = (m: MonitorRecord) =>
  JSON.stringify([m.settings.schedule, m.settings.timezone, m.specVersion, m.updatedAt]);

export interface MonitorSchedulerOptions {
  monitors: MonitorStore;
  runs: MonitorRuns;
  log: Logger;
  /** systemClock unless a test runs on fake time. */
  clock?: Clock;
  reconcile?: ReconcileOptions;
}

export class MonitorScheduler implements Lifecycle {
  readonly name = 'monitor scheduler';
  private readonly tasks = new Map<string, ScheduledTask>();
  private readonly stamps = new Map<string, string>();
  /** When each monitor was last scheduled or unscheduled here (a counter): a reconcile leaves alone what
   * changed after it read the database, since what it read is older. */
  private readonly touched = new Map<string, number>();
  private touches = 0;
  private reconciling: Promise<void> | undefined;
  private reconcileAgain = false;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private readonly onMonitors = () => void this.reconcile();
  /** Ticks under way, waited for by `stop` so none is cut off by the database closing. */
  private readonly ticking = new Set<Promise<void>>();
  private started = false;
  /** Aborted by `stop`: ticks still waiting for their time (see `untilDue`) give up. */
  private stopping = new AbortController();

  private readonly options: Required<MonitorSchedulerOptions>;

  constructor(options: MonitorSchedulerOptions) {
    this.options = { clock: systemClock, reconcile: {}, ...options };
  }

  get scheduledCount(): number {
    return this.tasks.size;
  }

  /** The next run of this node's task for the monitor; undefined when it has none. */
  nextRunOf(monitorId: string): Date | null | undefined {
    return this.tasks.get(monitorId)?.getNextRun();
  }

  /**
   * Schedule every active monitor from the database. One that missed runs while the service was down
   * (its stored next run has passed) gets one catch-up capture now — never one per missed tick.
   */
  async start(): Promise<void> {
    this.started = true;
    this.stopping = new AbortController();
    // node-cron logs to the console by default (e.g. "missed execution" when the loop was busy): into ours.
    cron.setLogger({
      info: (message) => this.options.log.debug({ source: 'node-cron' }, message),
      debug: (message) => this.options.log.debug({ source: 'node-cron' }, String(message)),
      warn: (message) => this.options.log.warn({ source: 'node-cron' }, message),
      error: (message, err) => this.options.log.error({ source: 'node-cron', err: err ?? message }, String(message)),
    });
    const now = this.options.clock.now();
    for (const monitor of await this.options.monitors.active()) {
      try {
        if (monitor.nextRunAt !== null && monitor.nextRunAt <= now.toISOString())
          await this.catchUp(monitor, monitor.nextRunAt, now);
        await this.schedule(monitor);
      } catch (err) {
        this.options.log.error({ err, monitor: monitor.id }, 'monitor could not be scheduled');
      }
    }
    const { changes, intervalMs } = this.options.reconcile;
    changes?.on('monitors', this.onMonitors);
    if (intervalMs) {
      this.reconcileTimer = setInterval(() => void this.reconcile(), intervalMs);
      this.reconcileTimer.unref();
    }
  }

  /**
   * Bring the tasks in line with the database: schedule active monitors this node has no task for,
   * reschedule those whose schedule, time zone, spec version or update time differ, drop the ones gone or
   * paused. One at a time; a call during one runs another after it. Never throws.
   */
  reconcile(): Promise<void> {
    if (this.reconciling) {
      this.reconcileAgain = true;
      return this.reconciling;
    }
    this.reconciling = this.reconcileOnce().finally(() => {
      this.reconciling = undefined;
      if (this.reconcileAgain) {
        this.reconcileAgain = false;
        void this.reconcile();
      }
    });
    return this.reconciling;
  }

  private async reconcileOnce(): Promise<void> {
    const since = this.touches;
    const untouched = (id: string) => (this.touched.get(id) ?? 0) <= since;
    try {
      if (!this.started) return;
      const active = await this.options.monitors.active();
      const seen = new Set<string>();
      for (const monitor of active) {
        seen.add(monitor.id);
        if (!this.started) return;
        if (!untouched(monitor.id) || this.stamps.get(monitor.id) === stampOf(monitor)) continue;
        this.options.log.info({ monitor: monitor.id }, 'monitor changed elsewhere: (re)scheduled');
        await this.schedule(monitor);
      }
      for (const id of [...this.tasks.keys()]) {
        if (seen.has(id) || !untouched(id)) continue;
        this.options.log.info({ monitor: id }, 'monitor paused or deleted elsewhere: unscheduled');
        this.unschedule(id);
      }
      for (const id of [...this.touched.keys()]) if (!this.tasks.has(id) && untouched(id)) this.touched.delete(id);
    } catch (err) {
      this.options.log.error(
        { err },
        'could not reconcile the monitor schedules with the database; trying again later',
      );
    }
  }

  /** (Re)schedule a monitor as its settings now say; a paused one is unscheduled. */
  async schedule(monitor: MonitorRecord): Promise<void> {
    this.unschedule(monitor.id);
    if (!this.started || monitor.settings.paused) {
      await this.options.monitors.setNextRun(monitor.id, null);
      return;
    }
    const task = cron.schedule(monitor.settings.schedule, (ctx) => this.track(this.tick(monitor.id, ctx.date, task)), {
      timezone: monitor.settings.timezone,
      name: `monitor ${monitor.id}`,
    });
    this.tasks.set(monitor.id, task);
    this.stamps.set(monitor.id, stampOf(monitor));
    await this.options.monitors.setNextRun(monitor.id, task.getNextRun());
  }

  unschedule(monitorId: string): void {
    this.touched.set(monitorId, ++this.touches);
    const task = this.tasks.get(monitorId);
    if (!task) return;
    this.tasks.delete(monitorId);
    this.stamps.delete(monitorId);
    void task.destroy();
  }

  /** No tick starts after this; the ones under way (one statement each) finish, by `deadline` at the latest. */
  async stop(deadline: number): Promise<void> {
    this.started = false;
    this.stopping.abort();
    this.options.reconcile.changes?.off('monitors', this.onMonitors);
    clearInterval(this.reconcileTimer);
    await this.reconciling;
    for (const id of [...this.tasks.keys()]) this.unschedule(id);
    if (this.ticking.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.ticking),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
  }

  private track(tick: Promise<void>): Promise<void> {
    this.ticking.add(tick);
    return tick.finally(() => this.ticking.delete(tick));
  }

  /** One capture for runs missed while stopped; a key at its queue cap gets none (the schedule goes on). */
  private async catchUp(monitor: MonitorRecord, missed: string, now: Date): Promise<void> {
    try {
      const started = await this.options.runs.catchUp(monitor, missed, now);
      if (!started) return; // another node starting at the same time took it
      this.options.log.info(
        { monitor: monitor.id, missed, created: started.created },
        'catch-up capture for a run missed while stopped',
      );
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'queue_full')) throw err;
      this.options.log.warn(
        { monitor: monitor.id },
        'no catch-up capture: its key has jobs.maxQueuedPerKey jobs queued or running',
      );
    }
  }

  /**
   * Wait until the clock reaches `at` (node-cron fired on this node's clock, which may run ahead of the
   * database's); false when the scheduler stopped meanwhile. The offset may be refreshed while waiting: look again.
   */
  private async untilDue(at: Date): Promise<boolean> {
    const signal = this.stopping.signal;
    for (let early = at.getTime() - this.options.clock.now().getTime(); early > 0;) {
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, early);
        signal.addEventListener('abort', done, { once: true });
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
      });
      early = at.getTime() - this.options.clock.now().getTime();
    }
    return !signal.aborted;
  }

  /**
   * A tick never throws: a failure is logged and the next tick tries again. A monitor found paused or
   * gone — changed by another process, e.g. its key revoked with the CLI — is unscheduled here.
   */
  private async tick(monitorId: string, at: Date, task: ScheduledTask): Promise<void> {
    try {
      if (!(await this.untilDue(at)) || this.tasks.get(monitorId) !== task) return; // stopped or rescheduled meanwhile
      const outcome = await this.options.runs.tick(monitorId, at);
      if (outcome === 'skipped')
        this.options.log.warn(
          { monitor: monitorId, tick: at },
          "tick skipped: the previous capture is unfinished or its key's queue is full",
        );
      const active = await this.options.monitors.setNextRunIfActive(monitorId, task.getNextRun());
      if (!active && this.tasks.get(monitorId) === task) {
        this.options.log.info({ monitor: monitorId }, 'monitor is paused or gone, or its key revoked: unscheduled');
        this.unschedule(monitorId);
      }
    } catch (err) {
      this.options.log.error({ err, monitor: monitorId }, 'monitor tick failed');
    }
  }
}
