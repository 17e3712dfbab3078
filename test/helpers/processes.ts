import { readdirSync, readFileSync } from 'node:fs';
import { until } from './until.js';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  comm: string;
}

/** Every process on the machine, from /proc (no `ps` needed). */
export function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // comm is in parentheses and may hold spaces; the fields after it are space-separated.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const [state, ppid, pgid] = stat.slice(close + 2).split(' ');
      out.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), state: state!, comm });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Processes in a process group (Chromium and all its children share the browser's group). */
export function processGroup(pgid: number): ProcInfo[] {
  return listProcesses().filter((p) => p.pgid === pgid);
}

/** Zombies whose parent is `ppid` (a child that exited and was never reaped). */
export function zombiesOf(ppid: number): ProcInfo[] {
  return listProcesses().filter((p) => p.state === 'Z' && p.ppid === ppid);
}

/**
 * `until` for callers that want a boolean instead of an exception (the durability CLI helper reports it
 * itself). New code waits with `until`, whose timeout names what never happened.
 */
export async function waitFor(check: () => boolean, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  return until('a process condition', () => check(), timeoutMs, intervalMs).then(
    () => true,
    () => check(),
  );
}
