// One shape for every long-lived part of the service (browser manager, egress proxy, job worker,
// webhook dispatcher, monitor scheduler, sweeper, diff pool, HTTP server): main.ts starts them in one
// list and stops them in the reverse order, each by the same deadline.
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
