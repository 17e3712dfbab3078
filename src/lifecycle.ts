// One shape for every long-lived part of the service (browser manager, egress proxy, job worker,
// webhook dispatcher, monitor scheduler, sweeper, diff pool, HTTP server): they start in one list (its
// order: src/app/roles.ts) and stop in the reverse order, each by the same deadline.
export interface Lifecycle {
  /** A name for the logs. */
  readonly name: string;
  start(): Promise<void>;
  /**
   * Stop taking work, finish or hand back what is in flight by `deadline` (epoch ms), then release
   * resources. Resolves once stopped; never rejects for work cut at the deadline.
   */
  stop(deadline: number): Promise<void>;
}

/** What startAll and stopAll say (a pino logger fits). */
export interface LifecycleLog {
  error(obj: object, msg: string): void;
}

/**
 * Starts the parts in order, each once the one before has started (a later part may need an earlier
 * one: the browser needs the egress proxy's address). When one fails to start, the parts already
 * started are stopped again (in reverse, at once) and the failure is thrown.
 */
export async function startAll(parts: readonly Lifecycle[], log: LifecycleLog): Promise<void> {
  const started: Lifecycle[] = [];
  for (const part of parts) {
    try {
      await part.start();
    } catch (err) {
      log.error({ err, part: part.name }, 'could not start; stopping what started');
      await stopAll(started, Date.now(), log);
      throw err;
    }
    started.push(part);
  }
}

/**
 * Stops the parts in the reverse order of `parts`, each by the same deadline: a part finishing early
 * leaves the rest of the time to the next. A part that fails to stop is logged and the others still
 * stop: shutdown must reach the end (the database is closed after this).
 */
export async function stopAll(parts: readonly Lifecycle[], deadline: number, log: LifecycleLog): Promise<void> {
  for (const part of [...parts].reverse()) {
    try {
      await part.stop(deadline);
    } catch (err) {
      log.error({ err, part: part.name }, 'did not stop cleanly');
    }
  }
}

/**
 * Parts that stop at the same time, as one entry of the list: each starts in the order given, and
 * all stop together. For parts that drain the same work: the HTTP server waits for the renders in
 * flight while the job worker stops taking new jobs; stopped one after the other, the worker would
 * keep starting renders the server is waiting for.
 */
export function together(name: string, parts: readonly Lifecycle[]): Lifecycle {
  return {
    name,
    start: () => startAll(parts, silent),
    async stop(deadline) {
      const results = await Promise.allSettled(parts.map((part) => part.stop(deadline)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

// Inside a group, the outer startAll/stopAll log the failure with the group's name.
const silent: LifecycleLog = { error: () => undefined };
