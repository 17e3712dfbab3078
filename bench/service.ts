import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { log, type RenderFn } from './measure.js';
import { processTree, sameProcessAlive } from './process-tree.js';
import type { Format } from './raw.js';

/** Project root: dist/bench/service.js -> ../../ */
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI_PATH = fileURLToPath(new URL('../src/cli.js', import.meta.url));

export interface ServiceHandle {
  pid: number;
  baseUrl: string;
  dataDir: string;
  /** SIGTERM, wait for exit (SIGKILL after a grace period), reap orphans, remove the data dir. Idempotent. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('could not get a free port'))));
    });
  });
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/** `cliPath`: another build of the service (the tracing bench's baseline); this one's by default. */
export async function startService(
  extraEnv: Record<string, string> = {},
  readyTimeoutMs = 60_000,
  cliPath = CLI_PATH,
): Promise<ServiceHandle> {
  if (!existsSync(cliPath)) {
    throw new Error(`${cliPath} not found: build the service first, or set BENCH_SKIP_SERVICE=1`);
  }
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'pagewatch-bench-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [cliPath, 'serve'], {
    cwd: PROJECT_ROOT,
    env: {
      // The anonymous tier allows 20 requests/min and 1 render at a time per IP by default; the bench
      // sends thousands from 8 clients on one IP. Lift both (unless the caller set them) so the figures
      // measure rendering, not the tier's limits.
      PAGEWATCH_RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
      PAGEWATCH_LIMITS_ANONYMOUS_CONCURRENCY_PER_IP: '1000',
      ...process.env,
      ...extraEnv,
      PAGEWATCH_PORT: String(port),
      PAGEWATCH_HOST: '127.0.0.1',
      PAGEWATCH_DATA_DIR: dataDir,
      PAGEWATCH_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Keep our stdout clean for the JSON line: forward everything to stderr.
  let tail = '';
  const forward = (chunk: Buffer): void => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      const tree = child.pid !== undefined ? processTree(child.pid) : new Map<number, string>();
      if (!hasExited(child)) {
        child.kill('SIGTERM');
        if (!(await waitExit(child, 20_000))) {
          log('service did not exit 20 s after SIGTERM; sending SIGKILL');
          child.kill('SIGKILL');
          await waitExit(child, 5_000);
        }
      }
      log(`service exited (code=${child.exitCode}, signal=${child.signalCode})`);
      // Chromium processes the service started should go with it; give them a moment, then reap by pid.
      tree.delete(child.pid ?? -1);
      for (let i = 0; i < 30 && [...tree].some(([p, st]) => sameProcessAlive(p, st)); i++) await sleep(100);
      for (const [pid, st] of tree) {
        if (!sameProcessAlive(pid, st)) continue;
        log(`killing leftover service descendant ${pid}`);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
      await rm(dataDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (spawnError) throw spawnError;
      if (hasExited(child)) {
        throw new Error(
          `service exited before ready (code=${child.exitCode}, signal=${child.signalCode}); output tail:\n${tail}`,
        );
      }
      try {
        const res = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`service not ready after ${readyTimeoutMs} ms`);
      await sleep(200);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  if (child.pid === undefined) throw new Error('service has no pid');
  return { pid: child.pid, baseUrl, dataDir, stop };
}

/** (s) POST /api/image or /api/pdf of `source` (HTML, or `{ url }`), read the whole body, require 200. */
export function serviceRenderer(baseUrl: string, source: string | { url: string }, format: Format): RenderFn {
  const url = format === 'png' ? `${baseUrl}/api/image` : `${baseUrl}/api/pdf`;
  const page = typeof source === 'string' ? { html: source } : source;
  const body = JSON.stringify(format === 'png' ? { ...page, format: 'png' } : page);
  return async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    const buf = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) {
      throw new Error(`POST ${url} -> ${res.status}: ${buf.toString('utf8').slice(0, 500)}`);
    }
    if (buf.length === 0) throw new Error(`POST ${url} -> 200 with an empty body`);
  };
}
