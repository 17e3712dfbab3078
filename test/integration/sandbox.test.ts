// Chromium's sandbox (render.sandbox), with the real built CLI as a child process. As an unprivileged
// user (`runuser -u nobody`) the sandbox is on and renders work: this is proven from /proc — no
// `--no-sandbox` in any Chromium process's command line, renderers under seccomp-bpf — not taken
// from the service's word. As root, `auto` runs without it and says so; `on` cannot start and
// /ready says why and what to do.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killHard, startCli, type CliService } from '../helpers/durability-cli.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng } from '../helpers/png.js';
import { listProcesses } from '../helpers/processes.js';
import { cliReadableBy } from '../helpers/readable-checkout.js';
import { until } from '../helpers/until.js';

const USER = 'nobody';
const MARKER = 'SANDBOXED-RENDER-7f3a';

/** Why the unprivileged half cannot run here, or undefined. Only these two reasons may skip it. */
function cannotRunAsOtherUser(): string | undefined {
  if (process.geteuid?.() !== 0) return 'not running as root, so cannot start the service as another user';
  if (spawnSync('runuser', ['--help']).error) return 'no `runuser` on this machine';
  if (spawnSync('setpriv', ['--help']).error) return 'no `setpriv` on this machine';
  return undefined;
}
const skipReason = cannotRunAsOtherUser();
if (skipReason) console.warn(`sandbox.test.ts: the unprivileged-user tests are SKIPPED: ${skipReason}`);

/**
 * The built CLI as `nobody` can run it: the checkout's, or a staged copy when the checkout is out of that
 * user's reach (a clone under /root). Staged once for the file, removed after it.
 */
let checkout: ReturnType<typeof cliReadableBy> | undefined;
const cliForUser = () => (checkout ??= cliReadableBy(USER)).cli;
afterAll(() => checkout?.cleanup());

// Chromium rewrites its processes' titles, so a child's argv may come back as one string: cmdline is
// read as text, arguments separated by spaces.
interface ChromiumProcess {
  pid: number;
  cmdline: string;
  uid: number;
  seccomp: number;
  noNewPrivs: number;
}
const hasArg = (p: ChromiumProcess, arg: string) => ` ${p.cmdline} `.includes(` ${arg} `);

/** Every live process in the process groups of the browsers `svc` launched, read from /proc. */
function chromiumProcesses(svc: CliService): ChromiumProcess[] {
  const out: ChromiumProcess[] = [];
  for (const p of listProcesses().filter((q) => svc.browserPids.has(q.pgid))) {
    try {
      const status = readFileSync(`/proc/${p.pid}/status`, 'utf8');
      out.push({
        pid: p.pid,
        cmdline: readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0').join(' ').trim(),
        uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]),
        seccomp: Number(/^Seccomp:\s+(\d+)/m.exec(status)?.[1]),
        noNewPrivs: Number(/^NoNewPrivs:\s+(\d+)/m.exec(status)?.[1]),
      });
    } catch {
      /* it ended while we looked */
    }
  }
  return out;
}

function baseEnv(
  dataDir: string,
  fixture: FixtureServer | undefined,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: dataDir,
    ...(process.env.PAGEWATCH_CHROMIUM_PATH && { PAGEWATCH_CHROMIUM_PATH: process.env.PAGEWATCH_CHROMIUM_PATH }),
    PAGEWATCH_PORT: '0',
    PAGEWATCH_HOST: '127.0.0.1',
    PAGEWATCH_DATA_DIR: dataDir,
    PAGEWATCH_RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    ...(fixture && { PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]' }),
    ...extra,
  };
}

async function stop(svc: CliService | undefined): Promise<void> {
  if (!svc) return;
  svc.child.kill('SIGTERM'); // runuser passes it on to the service, which closes its browser
  // Bounded: a service that does not exit in 30 s is SIGKILLed below rather than stalling the run.
  await Promise.race([svc.exit, new Promise((done) => setTimeout(done, 30_000).unref())]);
  await killHard(svc); // whatever is left (nothing, normally)
}

const ready = (svc: CliService) => fetch(`${svc.url}/ready`, { signal: AbortSignal.timeout(60_000) });
const post = (svc: CliService, path: string, body: unknown) =>
  fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });

// With no_new_privs, as systemd's NoNewPrivileges=yes runs it: the sandbox needs no setuid helper.
describe.skipIf(Boolean(skipReason))(`as an unprivileged user (${USER}) with no_new_privs, render.sandbox=auto`, () => {
  let fixture: FixtureServer;
  let dataDir: string;
  let svc: CliService | undefined;

  beforeAll(async () => {
    fixture = await startFixtureServer();
    fixture.route('/page', (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><html><body style="margin:0;background:rgb(0,128,255)"><h1>${MARKER}</h1></body></html>`);
    });
    dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-sandbox-'));
    const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' }));
    chownSync(dataDir, uid, gid); // the service's data directory is the one place it may write
    svc = await startCli(baseEnv(dataDir, fixture), 60_000, { user: USER, noNewPrivileges: true, cli: cliForUser() });
  }, 120_000);
  afterAll(async () => {
    await stop(svc);
    await fixture?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('is ready with the sandbox on, and no warning', async () => {
    const res = await ready(svc!);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', browser: 'ok', storage: 'ok', fonts: 'ok', pdfTools: 'ok', pdfText: 'ok' },
      sandbox: 'on',
    });
    expect(
      svc!.logLines.filter((l) => l.level === 40 || l.level === 50),
      JSON.stringify(svc!.logLines),
    ).toEqual([]);
  });

  it('renders a PDF and a PNG of a page on the fixture server (through the egress proxy)', async () => {
    const pdf = await post(svc!, '/api/pdf', { url: `${fixture.url}/page` });
    expect(pdf.status, await pdf.clone().text()).toBe(200);
    expect((await parsePdf(Buffer.from(await pdf.arrayBuffer()))).text).toContain(MARKER);

    const png = await post(svc!, '/api/image', { url: `${fixture.url}/page`, viewport: { width: 120, height: 80 } });
    expect(png.status, await png.clone().text()).toBe(200);
    const image = decodePng(Buffer.from(await png.arrayBuffer()));
    expect([image.width, image.height]).toEqual([120, 80]);
    expect(image.pixel(110, 75)).toEqual({ r: 0, g: 128, b: 255, a: 255 });
    expect(fixture.requests.filter((r) => r.path === '/page')).toHaveLength(2);
  });

  it('every Chromium process runs as the user with no_new_privs and without --no-sandbox, and renderers are under seccomp-bpf', async () => {
    expect(svc!.browserPids.size).toBeGreaterThan(0);
    const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }));
    // Warm pages keep renderers alive after the renders above; their sandbox is set up as they start.
    const procs = await until(
      'a Chromium renderer with seccomp filtering (Seccomp: 2)',
      () => {
        const all = chromiumProcesses(svc!);
        return all.some((p) => hasArg(p, '--type=renderer') && p.seccomp === 2) && all;
      },
      30_000,
    );
    for (const p of procs) {
      expect(hasArg(p, '--no-sandbox'), `pid ${p.pid}: ${p.cmdline}`).toBe(false);
      expect(p.uid, `pid ${p.pid}: ${p.cmdline}`).toBe(uid);
      expect(p.noNewPrivs, `pid ${p.pid}: ${p.cmdline}`).toBe(1);
    }
    const renderers = procs.filter((p) => hasArg(p, '--type=renderer'));
    expect(renderers.length).toBeGreaterThan(0);
    for (const r of renderers) expect(r.seccomp, `renderer ${r.pid}`).toBe(2);
  });
});

describe.skipIf(Boolean(skipReason) || spawnSync('unshare', ['--help']).error)(
  `as ${USER} on a host without user namespaces`,
  () => {
    let dataDir: string;
    let svc: CliService | undefined;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-sandbox-nouserns-'));
      chownSync(
        dataDir,
        Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' })),
        Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' })),
      );
      svc = await startCli(baseEnv(dataDir, undefined), 60_000, {
        user: USER,
        withoutUserNamespaces: true,
        cli: cliForUser(),
      });
    }, 120_000);
    afterAll(async () => {
      await stop(svc);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    it('auto keeps the sandbox, which cannot start: /ready is 503 naming user namespaces and the fixes; the log says the same', async () => {
      const res = await ready(svc!);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { details: { path: string; message: string }[] } };
      expect(body.error.details).toHaveLength(1);
      expect(body.error.details[0]!.path).toBe('browser');
      const message = body.error.details[0]!.message;
      expect(message).toMatch(
        /^not usable: Chromium's sandbox could not start: it needs unprivileged user namespaces\. Fix: enable them/,
      );
      expect(message).toMatch(/user\.max_user_namespaces.*chrome-sandbox.*render\.sandbox=off/);
      expect(
        svc!.logLines.some((l) => l.level === 50 && l.msg === message.replace(/^not usable: /, '')),
        JSON.stringify(svc!.logLines),
      ).toBe(true);
      expect(svc!.browserPids.size).toBe(0);
    });
  },
);

describe('as root', () => {
  let dataDirs: string[] = [];
  const services: CliService[] = [];
  const start = async (extra: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-sandbox-root-'));
    dataDirs.push(dir);
    const svc = await startCli(baseEnv(dir, undefined, extra), 60_000);
    services.push(svc);
    return svc;
  };
  afterAll(async () => {
    for (const svc of services) await stop(svc);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    dataDirs = [];
  }, 60_000);

  it.skipIf(process.geteuid?.() !== 0)(
    'auto runs Chromium with --no-sandbox, warns at start how to run unprivileged, and /ready says so',
    async () => {
      const svc = await start({});
      const warning = svc.logLines.find((l) => l.level === 40 && String(l.msg).includes('WITHOUT its sandbox'));
      expect(warning?.msg, JSON.stringify(svc.logLines)).toMatch(/runs as root.*unprivileged user/);
      const res = await ready(svc);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { sandbox: string; warnings: string[] };
      expect(body.sandbox).toBe('off');
      expect(body.warnings).toEqual([warning!.msg]);
      const procs = chromiumProcesses(svc);
      const browser = procs.find((p) => svc.browserPids.has(p.pid));
      expect(browser && hasArg(browser, '--no-sandbox'), browser?.cmdline).toBe(true);
    },
  );

  it.skipIf(process.geteuid?.() !== 0)(
    'on cannot start Chromium as root: /ready is 503 naming the fix, renders are 503, nothing hangs',
    async () => {
      const svc = await start({ PAGEWATCH_RENDER_SANDBOX: 'on' });
      // Each fetch is bounded (60 s) so a launch that hangs fails the test instead of stalling it.
      const res = await ready(svc);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; details: { path: string; message: string }[] } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.details).toHaveLength(1);
      expect(body.error.details[0]!.path).toBe('browser');
      expect(body.error.details[0]!.message).toMatch(
        /sandbox cannot start as root.*Fix: run the service as an unprivileged user.*render\.sandbox=auto/,
      );
      const logged = svc.logLines.find((l) => l.level === 50 && String(l.msg).includes('sandbox cannot start as root'));
      expect(logged, JSON.stringify(svc.logLines)).toBeDefined();
      const render = await post(svc, '/api/image', { html: '<p>x</p>' });
      expect(render.status).toBe(503);
      expect(svc.browserPids.size).toBe(0); // no browser ever launched
    },
  );
});
