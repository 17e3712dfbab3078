import { readdirSync, readFileSync } from 'node:fs';

interface ProcInfo {
  ppid: number;
  /** Field 22 of /proc/<pid>/stat, to tell a pid apart from a later reuse. */
  startTime: string;
}

function readStat(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // exited meanwhile
  }
  // "pid (comm) state ppid ..." — comm may contain spaces/parentheses.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(rest[1]);
  const startTime = rest[19] ?? '';
  return Number.isFinite(ppid) ? { ppid, startTime } : null;
}

function allProcesses(): Map<number, ProcInfo> {
  const out = new Map<number, ProcInfo>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const info = readStat(pid);
    if (info) out.set(pid, info);
  }
  return out;
}

/** `root` and all its descendants currently alive, with their start times. */
export function processTree(root: number): Map<number, string> {
  const procs = allProcesses();
  const children = new Map<number, number[]>();
  for (const [pid, info] of procs) {
    const list = children.get(info.ppid);
    if (list) list.push(pid);
    else children.set(info.ppid, [pid]);
  }
  const out = new Map<number, string>();
  const rootInfo = procs.get(root);
  if (!rootInfo) return out;
  out.set(root, rootInfo.startTime);
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      if (out.has(child)) continue;
      out.set(child, procs.get(child)?.startTime ?? '');
      queue.push(child);
    }
  }
  return out;
}

function fieldKiB(file: string, field: RegExp): number {
  try {
    const m = field.exec(readFileSync(file, 'utf8'));
    return m?.[1] ? Number(m[1]) : 0; // zombies have no memory fields
  } catch {
    return 0; // exited meanwhile, or not readable
  }
}

/**
 * Memory of the process and all its descendants, in MiB: the sum of VmRSS
 * (/proc/<pid>/status; counts pages shared between Chromium processes once per
 * process) and the sum of Pss (/proc/<pid>/smaps_rollup; shared pages split
 * between sharers, so closer to what the tree really costs).
 */
export function treeMemoryMiB(root: number): { rss: number; pss: number; processes: number } {
  const pids = processTree(root);
  let rss = 0;
  let pss = 0;
  for (const pid of pids.keys()) {
    rss += fieldKiB(`/proc/${pid}/status`, /^VmRSS:\s+(\d+)\s+kB/m);
    pss += fieldKiB(`/proc/${pid}/smaps_rollup`, /^Pss:\s+(\d+)\s+kB/m);
  }
  return { rss: rss / 1024, pss: pss / 1024, processes: pids.size };
}

/** Whether `pid` is still the same process (same start time) as recorded. */
export function sameProcessAlive(pid: number, startTime: string): boolean {
  const info = readStat(pid);
  return info !== null && info.startTime === startTime;
}
