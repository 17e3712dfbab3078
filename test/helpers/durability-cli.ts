// For crash tests: the built CLI (`dist/src/cli.js`) as a child process on a data directory the test
// chooses, its JSON log read for the port and every Chromium it launched, and a hard kill that takes
// the browsers with it (a SIGKILLed Node process leaves its Chromium running in its own process group).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { processGroup, waitFor } from './processes.js';

export const CLI = resolve(import.meta.dirname, '../../dist/src/cli.js');

export interface CliService {
  child: ChildProcess;
  port: number;
  url: string;
  /** Every browser this process launched (each is the leader of its own process group). */
  browserPids: Set<number>;
  /** Resolves with the exit code, or the signal that ended the process. */
  exit: Promise<number | NodeJS.Signals | null>;
  /** Every JSON log line so far. */
  logLines: Record<string, unknown>[];
  /** The last lines of stderr, for failure messages. */
  stderrTail(): string;
}

function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -p tsconfig.json\` (npm test builds first)`);
}

/** `pagewatch keys create --name NAME` on `env`'s data directory: the key and its webhook secret. */
export async function createKeyWithCli(
  env: NodeJS.ProcessEnv,
  name: string,
): Promise<{ id: string; key: string; webhookSecret: string }> {
  assertBuilt();
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'keys', 'create', '--name', name], { env });
  const field = (label: string) => {
    const m = new RegExp(`^${label}:\\s+(\\S+)$`, 'm').exec(stdout);
    if (!m) throw new Error(`no "${label}" in the output of keys create:\n${stdout}`);
    return m[1]!;
  };
  return { id: field('id'), key: field('key'), webhookSecret: field('webhook secret') };
}

/** Who the service runs as (root only): a user, and no_new_privs as systemd's NoNewPrivileges=yes sets it. */
export interface RunAs {
  user: string;
  noNewPrivileges?: boolean;
  /** In a user namespace of its own whose user.max_user_namespaces is 0, as on a host with them off. */
  withoutUserNamespaces?: boolean;
  /** The built CLI to run, when the checkout's is out of the user's reach (see readable-checkout.ts). */
  cli?: string;
}

// Waits until the parent has mapped the ids (1:1), re-execs so the mapped root has its capabilities in
// the namespace, sets the namespace's limit of nested user namespaces to 0, then runs "$@".
const NO_USERNS_SCRIPT = `while [ -z "$(cat /proc/self/uid_map)" ]; do sleep 0.05; done
exec sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"' sh "$@"`;

function spawnAs(runAs: RunAs, serve: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const asUser = [
    'runuser',
    '-u',
    runAs.user,
    '--',
    ...(runAs.noNewPrivileges ? ['setpriv', '--no-new-privs'] : []),
    ...serve,
  ];
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  if (!runAs.withoutUserNamespaces) return spawn(asUser[0]!, asUser.slice(1), { env, stdio });
  return spawn('unshare', ['--user', 'sh', '-c', NO_USERNS_SCRIPT, 'sh', ...asUser], { env, stdio });
}

/** Map ids 0–65535 1:1 into the user namespace `child` (unshare, then the script) has entered. */
async function mapIds(child: ChildProcess): Promise<void> {
  const own = readlinkSync('/proc/self/ns/user');
  const entered = () => {
    try {
      return readlinkSync(`/proc/${child.pid}/ns/user`) !== own;
    } catch {
      return false;
    }
  };
  if (!(await waitFor(entered, 10_000, 10))) throw new Error('unshare --user did not enter a new user namespace');
  writeFileSync(`/proc/${child.pid}/uid_map`, '0 0 65536');
  writeFileSync(`/proc/${child.pid}/gid_map`, '0 0 65536');
}

/**
 * `pagewatch serve` with `env` (PAGEWATCH_* settings); resolves once it listens. With `runAs`, through
 * `runuser` (and `setpriv --no-new-privs`): `child` is then runuser, which passes SIGTERM on.
 */
export async function startCli(env: NodeJS.ProcessEnv, startTimeoutMs = 30_000, runAs?: RunAs): Promise<CliService> {
  assertBuilt();
  const serve = [process.execPath, runAs?.cli ?? CLI, 'serve'];
  const childEnv = { ...env, PAGEWATCH_LOG_LEVEL: 'info' };
  const child = runAs
    ? spawnAs(runAs, serve, childEnv)
    : spawn(serve[0]!, serve.slice(1), { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  if (runAs?.withoutUserNamespaces) await mapIds(child);
  const exit = new Promise<number | NodeJS.Signals | null>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal)),
  );
  const browserPids = new Set<number>();
  const logLines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`service did not start within ${startTimeoutMs} ms; stderr: ${stderr}`)),
      startTimeoutMs,
    );
    void exit.then((code) => {
      clearTimeout(timer);
      fail(new Error(`service exited (${String(code)}) before listening; stderr: ${stderr}`));
    });
    // Keep reading for the whole life of the process: later relaunches log their pid too, and an
    // unread pipe would block the child once it fills.
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: { msg?: string; pid?: number; port?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      logLines.push(entry);
      if (entry.msg === 'browser launched' && entry.pid) browserPids.add(entry.pid);
      if (entry.msg === 'pagewatch listening') {
        clearTimeout(timer);
        done(entry.port!);
      }
    });
  });
  return { child, port, url: `http://127.0.0.1:${port}`, browserPids, logLines, exit, stderrTail: () => stderr };
}

/** SIGKILL the service and every browser it launched; resolves once none of them is left. */
export async function killHard(svc: CliService): Promise<boolean> {
  if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
  await svc.exit;
  for (const pid of svc.browserPids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* the group is already gone */
    }
  }
  return waitFor(() => [...svc.browserPids].every((pid) => processGroup(pid).length === 0), 10_000);
}
