import { cpuPerRender, cpuSnapshot } from './process-kinds.js';
import { percentile } from './stats.js';

/** One render; `client` is the 0-based index of the concurrent client issuing it. */
export type RenderFn = (client: number) => Promise<void>;

export interface Figures {
  p50: number;
  p95: number;
  rps4: number;
  rps8: number;
  /** CPU ms per render by process kind during the 8-client run (process-kinds.ts), when asked for. */
  cpuMsPerRender?: Record<string, number>;
}

export interface MeasureConfig {
  seqWarmup: number;
  seq: number;
  seconds: number;
  warmupSeconds: number;
}

export const log = (msg: string): void => {
  process.stderr.write(`[bench] ${msg}\n`);
};

/** Warm up, then `count` renders one after another; returns p50/p95 in ms. */
export async function measureSequential(
  render: RenderFn,
  warmup: number,
  count: number,
): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warmup; i++) await render(0);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await render(0);
    samples.push(performance.now() - t0);
  }
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

/**
 * `clients` concurrent loops of renders. Renders completing during the first
 * `warmupSeconds` are not counted; the figure is renders completed inside the
 * following `seconds`-long window, divided by the window length. Renders still
 * in flight at the end of the window are awaited but not counted.
 * The first failure stops all clients and is rethrown.
 */
export async function measureThroughput(
  render: RenderFn,
  clients: number,
  seconds: number,
  warmupSeconds: number,
  onRendered?: () => void,
): Promise<number> {
  const windowStart = performance.now() + warmupSeconds * 1000;
  const windowEnd = windowStart + seconds * 1000;
  let counted = 0;
  let failed = false;
  let failure: unknown;
  const loop = async (client: number): Promise<void> => {
    while (!failed && performance.now() < windowEnd) {
      try {
        await render(client);
      } catch (err) {
        if (!failed) {
          failed = true;
          failure = err;
        }
        return;
      }
      onRendered?.();
      const end = performance.now();
      if (end >= windowStart && end <= windowEnd) counted++;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, i) => loop(i)));
  if (failed) throw failure;
  return counted / seconds;
}

/**
 * Sequential p50/p95, then throughput at 4 and 8 clients; with `cpuRoot`, the CPU that process tree (and
 * this one) used per render over the whole 8-client run.
 */
export async function measureAll(
  label: string,
  render: RenderFn,
  cfg: MeasureConfig,
  cpuRoot?: number,
): Promise<Figures> {
  log(`${label}: sequential (${cfg.seqWarmup} warm-up + ${cfg.seq})`);
  const seq = await measureSequential(render, cfg.seqWarmup, cfg.seq);
  log(`${label}: p50=${seq.p50.toFixed(1)}ms p95=${seq.p95.toFixed(1)}ms`);
  log(`${label}: throughput x4 (${cfg.warmupSeconds}s warm-up + ${cfg.seconds}s)`);
  const rps4 = await measureThroughput(render, 4, cfg.seconds, cfg.warmupSeconds);
  log(`${label}: rps4=${rps4.toFixed(1)}`);
  log(`${label}: throughput x8 (${cfg.warmupSeconds}s warm-up + ${cfg.seconds}s)`);
  let renders = 0;
  const before = cpuRoot === undefined ? undefined : cpuSnapshot(cpuRoot);
  const rps8 = await measureThroughput(render, 8, cfg.seconds, cfg.warmupSeconds, () => renders++);
  const cpuMsPerRender = before && cpuPerRender(before, cpuSnapshot(cpuRoot!), renders);
  log(`${label}: rps8=${rps8.toFixed(1)}${cpuMsPerRender ? ` cpu ms/render ${JSON.stringify(cpuMsPerRender)}` : ''}`);
  return { ...seq, rps4, rps8, ...(cpuMsPerRender && { cpuMsPerRender }) };
}
