import { readdirSync, readFileSync } from 'node:fs';

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

export async function waitFor(check: () => boolean, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return check();
}
