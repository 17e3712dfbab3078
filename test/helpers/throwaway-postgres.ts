// A PostgreSQL server of a fault test's own (Debian's pg_createcluster): a fault test stops, restarts
// or reconfigures it without touching the shared server that the other suites use. Needs root and
// Debian's postgresql-common, which CI has; elsewhere the suite fails with what is missing.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { freePorts } from './free-ports.js';

const run = promisify(execFile);
const VERSION = '15';

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust auth). */
  url: string;
  port: number;
  name: string;
  /** The server's data directory (owned by the postgres user). */
  dataDir: string;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stop (fast: connections are cut) and start again. */
  restart(): Promise<void>;
  /** Stop and delete it. */
  drop(): Promise<void>;
}

const ctl = (name: string, action: string, ...args: string[]) =>
  run('pg_ctlcluster', ['--skip-systemctl-redirect', VERSION, name, action, ...args]);

/**
 * Creates and starts a cluster with trust auth on localhost. `settings` become postgresql.conf lines
 * (`max_connections: '20'`...). fsync is off: these servers hold nothing worth a crash-safe write.
 */
export async function startThrowawayPostgres(settings: Record<string, string> = {}): Promise<ThrowawayPostgres> {
  const name = `pwfault_${randomBytes(4).toString('hex')}`;
  const [port] = (await freePorts(1)) as [number];
  // pg_createcluster writes each `-o` into postgresql.conf as given, unquoted: only bare words and numbers
  // survive (listen_addresses stays its default, localhost). It drops `ssl`, which it sets itself: turn
  // TLS on with ALTER SYSTEM.
  const options = Object.entries({ fsync: 'off', ...settings }).flatMap(([k, v]) => ['-o', `${k}=${v}`]);
  try {
    await run('pg_createcluster', [VERSION, name, '--port', String(port), ...options, '--', '--auth=trust']);
  } catch (err) {
    throw new Error(
      'a fault test needs its own PostgreSQL server: pg_createcluster (Debian postgresql-common) as root failed',
      { cause: err },
    );
  }
  const dataDir = `/var/lib/postgresql/${VERSION}/${name}`;
  const server: ThrowawayPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    name,
    dataDir,
    stop: async (mode = 'fast') => {
      await ctl(name, 'stop', '-m', mode);
    },
    start: async () => {
      await ctl(name, 'start');
    },
    restart: async () => {
      await ctl(name, 'restart', '-m', 'fast');
    },
    drop: async () => {
      await run('pg_dropcluster', ['--stop', VERSION, name]).catch(() => undefined);
    },
  };
  try {
    await server.start();
  } catch (err) {
    await server.drop();
    throw err;
  }
  return server;
}
