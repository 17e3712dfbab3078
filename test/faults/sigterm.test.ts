// SIGTERM to a real `pagewatch serve` process: renders in flight finish, new work is refused, the
// process exits 0, and no Chromium process outlives it. Runs the built CLI (npm test builds first).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { processGroup } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const CLI = resolve(import.meta.dirname, '../../dist/src/cli.js');

interface Running {
  child: ChildProcess;
  port: number;
  browserPid: number;
  exit: Promise<number | null>;
  /** Resolves when the service logs that a signal began its shutdown (its listener is closed by then). */
  shuttingDown: Promise<void>;
  dataDir: string;
}

async function startCli(): Promise<Running> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-cli-'));
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env,
      PAGEWATCH_PORT: '0',
      PAGEWATCH_HOST: '127.0.0.1',
      PAGEWATCH_DATA_DIR: dataDir,
      PAGEWATCH_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let browserPid = 0;
  let onShutdown = () => {};
  const shuttingDown = new Promise<void>((done) => (onShutdown = done));
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error('service did not start within 30 s')), 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg: string; pid?: number; port?: number };
      if (entry.msg === 'browser launched') browserPid = entry.pid!;
      if (entry.msg === 'shutting down') onShutdown();
      if (entry.msg === 'pagewatch listening') {
        clearTimeout(timer);
        done(entry.port!);
      }
    });
  });
  return { child, port, browserPid, exit, shuttingDown, dataDir };
}

/** A request on a connection of its own: its status, or the error code if there is no answer. */
function freshRequest(base: string, path: string, body?: unknown): Promise<number | string> {
  return new Promise((done) => {
    const req = httpRequest(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      agent: false,
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (r) => {
      r.resume();
      done(r.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('graceful shutdown', () => {
  let running: Running | undefined;
  afterEach(() => {
    running?.child.kill('SIGKILL');
    if (running) rmSync(running.dataDir, { recursive: true, force: true });
  });

  it('SIGTERM during a render: the render completes, new requests are refused, exit 0, no Chromium left', async () => {
    running = await startCli();
    const { port, browserPid, child } = running;
    expect(browserPid).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${port}`;
    const inFlight = fetch(`${base}/api/pdf`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<h1>SHUTDOWN-TEST</h1>', delay: 2000 }),
    });
    // SIGTERM only once the render is really in the service (a request still on its way would be refused).
    const active = async () =>
      ((await (await fetch(`${base}/api/status`)).json()) as { render: { active: number } }).render.active;
    await until('the render to be in flight', async () => (await active()) === 1, 15_000, 20);
    child.kill('SIGTERM');
    await running.shuttingDown;

    // New work is refused while the render drains: the listener closes as the shutdown begins, so a new
    // connection (not one of fetch's pooled ones) soon finds no one listening. (One that raced the log
    // line into the accept queue is reset instead: wait for the first refusal, which is final.)
    await until(
      'new connections to be refused',
      async () => (await freshRequest(base, '/api/status')) === 'ECONNREFUSED',
      5000,
      20,
    );
    expect(await freshRequest(base, '/api/pdf', { html: 'late' })).toBe('ECONNREFUSED');

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    expect(await running.exit).toBe(0);
    await until('the browser to be gone', () => processGroup(browserPid).length === 0, 5000);
  });

  it('SIGINT with nothing in flight exits 0 promptly', async () => {
    running = await startCli();
    const started = Date.now();
    running.child.kill('SIGINT');
    expect(await running.exit).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    await until('the browser to be gone', () => processGroup(running!.browserPid).length === 0, 5000);
  });
});
