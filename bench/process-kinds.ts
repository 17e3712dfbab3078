// Where a process tree's CPU and memory go, by kind: the service's Node process, the benchmark's own
// process (its HTTP clients, or raw Playwright's client), and each type of Chromium process (the
// browser, renderers, the GPU process, utilities), told apart by Chromium's own --type switch.
import { readFileSync } from 'node:fs';
import { processTree } from './process-tree.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function kindOf(pid: number): string | null {
  if (pid === process.pid) return 'bench';
  let cmdline: string;
  try {
    // Chromium's children rewrite their command line as one string, so it is searched whole.
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null; // exited meanwhile
  }
  const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
  if (type) return type; // renderer, gpu-process, utility, zygote
  return /chrom/i.test(cmdline.split(' ')[0] ?? '') ? 'browser' : 'node';
}

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND; // utime + stime
  } catch {
    return 0;
  }
}

export type CpuSnapshot = Map<number, { kind: string; ms: number }>;

/** CPU used so far by `root`'s tree and by this process. */
export function cpuSnapshot(root: number): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const pid of new Set([...processTree(root).keys(), process.pid])) {
    const kind = kindOf(pid);
    if (kind) out.set(pid, { kind, ms: cpuMs(pid) });
  }
  return out;
}

/**
 * CPU ms per render by kind between two snapshots. A process that exited between them is missed
 * (Chromium keeps its processes for the life of a page, so few do).
 */
export function cpuPerRender(before: CpuSnapshot, after: CpuSnapshot, renders: number): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const [pid, { kind, ms }] of after) byKind[kind] = (byKind[kind] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  const out: Record<string, number> = {};
  let total = 0;
  for (const [kind, ms] of Object.entries(byKind)) {
    total += ms;
    out[kind] = Math.round((ms / renders) * 10) / 10;
  }
  out.total = Math.round((total / renders) * 10) / 10;
  return out;
}

/** Proportional set size by kind, in MiB, and how many processes of each kind there are. */
export function pssByKind(root: number): Record<string, { mib: number; processes: number }> {
  const out: Record<string, { mib: number; processes: number }> = {};
  for (const pid of processTree(root).keys()) {
    const kind = kindOf(pid);
    if (!kind) continue;
    let kib = 0;
    try {
      kib = Number(/^Pss:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* exited meanwhile */
    }
    const entry = (out[kind] ??= { mib: 0, processes: 0 });
    entry.mib = Math.round((entry.mib + kib / 1024) * 10) / 10;
    entry.processes++;
  }
  return out;
}
