// The image built from Containerfile, run as a user runs it: its own user (not root), Chromium's sandbox on
// with podman's defaults (no added capability, no seccomp option), data on a volume at /data. Host
// networking (`--network host`) so the container reaches this test's fixture server on 127.0.0.1 and the
// test reaches the service there: nothing leaves loopback.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { freePorts } from '../helpers/free-ports.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng } from '../helpers/png.js';
import {
  containerProcesses,
  hasArg,
  PAGEWATCH_IMAGE,
  podman,
  podmanMissing,
  serviceAndBrowser,
  type ContainerProcess,
} from '../helpers/podman.js';
import { until } from '../helpers/until.js';

const skip = podmanMissing();
if (skip) console.warn(`test/containers: SKIPPED (${skip})`);

const IMAGE_UID = 10001; // the Containerfile's `pagewatch` user
const MARKER = 'CONTAINER-RENDER-5b1e';
const GRACE_S = 20;
const id = `${process.pid}-${randomBytes(3).toString('hex')}`;
const volume = `pagewatch-test-data-${id}`;
let container = `pagewatch-test-${id}`;
let port: number;
let fixture: FixtureServer;
const url = () => `http://127.0.0.1:${port}`;

/** A container of the image on the test's volume; resolves once /ready answers 200. */
async function start(name: string): Promise<void> {
  container = name;
  await podman([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    '-v',
    `${volume}:/data`,
    '-e',
    'PAGEWATCH_HOST=127.0.0.1',
    '-e',
    `PAGEWATCH_PORT=${port}`,
    '-e',
    'PAGEWATCH_EGRESS_ALLOW_HOSTS=["127.0.0.1"]',
    '-e',
    'PAGEWATCH_JOBS_POLL_INTERVAL_MS=200',
    PAGEWATCH_IMAGE,
  ]);
  await until(
    `${name} to answer /ready 200`,
    async () => (await fetch(`${url()}/ready`).catch(() => undefined))?.status === 200,
    90_000,
    250,
  );
}

const post = (path: string, body: unknown, key?: string) =>
  fetch(`${url()}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
const get = (path: string, key: string) =>
  fetch(`${url()}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(60_000) });

describe.skipIf(Boolean(skip))('the container image, run with podman defaults', () => {
  beforeAll(async () => {
    [port] = (await freePorts(1)) as [number];
    fixture = await startFixtureServer();
    fixture.route('/page', (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><body style="margin:0;background:rgb(0,128,255)"><h1>${MARKER}</h1></body>`);
    });
    fixture.route('/blue', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<body style="margin:0;background:rgb(0,128,255)">');
    });
    await podman(['volume', 'create', volume]);
    await start(container);
  }, 180_000);

  afterAll(async () => {
    await podman(['rm', '-f', '-t', '0', container], { allowFailure: true });
    await podman(['volume', 'rm', '-f', volume], { allowFailure: true });
    await fixture?.close();
  }, 60_000);

  it('is ready with the sandbox on, runs as its own user, and its HEALTHCHECK passes', async () => {
    const ready = (await (await fetch(`${url()}/ready`)).json()) as { sandbox: string; checks: object };
    expect(ready).toEqual({
      status: 'ready',
      checks: { database: 'ok', browser: 'ok', storage: 'ok', fonts: 'ok', pdfTools: 'ok', pdfText: 'ok' },
      sandbox: 'on',
    });
    expect((await podman(['exec', container, 'id', '-un'])).stdout.trim()).toBe('pagewatch');
    const healthcheck = await podman(['healthcheck', 'run', container], { allowFailure: true });
    expect(healthcheck.code, healthcheck.stderr + healthcheck.stdout).toBe(0);
  });

  it('renders a PDF from HTML and a PNG of a page on the fixture server', async () => {
    const pdf = await post('/api/pdf', { html: `<h1>${MARKER}</h1>` });
    expect(pdf.status, await pdf.clone().text()).toBe(200);
    expect((await parsePdf(Buffer.from(await pdf.arrayBuffer()))).text).toContain(MARKER);

    const png = await post('/api/image', { url: `${fixture.url}/page`, viewport: { width: 120, height: 80 } });
    expect(png.status, await png.clone().text()).toBe(200);
    const image = decodePng(Buffer.from(await png.arrayBuffer()));
    expect([image.width, image.height]).toEqual([120, 80]);
    expect(image.pixel(110, 75)).toEqual({ r: 0, g: 128, b: 255, a: 255 });
    expect(fixture.requests.filter((r) => r.path === '/page')).toHaveLength(1);
  });

  it("Chromium's sandbox, from /proc: no --no-sandbox, not root, renderers in their own user namespace under Chromium's seccomp-bpf", async () => {
    // The runtime puts every process under one seccomp filter of its own; a sandboxed renderer adds
    // Chromium's, so it has more filters than the service, and a user and PID namespace of its own.
    const procs = await until(
      'a Chromium renderer under a seccomp filter of its own',
      async () => {
        const all = await containerProcesses(container);
        const { service } = serviceAndBrowser(all);
        const renderers = all.filter((p) => hasArg(p, '--type=renderer'));
        return service && renderers.some((r) => r.seccompFilters > service.seccompFilters) && all;
      },
      30_000,
      250,
    );
    const service = serviceAndBrowser(procs).service!;
    const chromium = procs.filter((p) => p.cmdline.includes('/usr/lib/chromium/'));
    expect(chromium.length).toBeGreaterThan(0);
    for (const p of procs) {
      expect(hasArg(p, '--no-sandbox'), `pid ${p.pid}: ${p.cmdline}`).toBe(false);
      expect(p.uid, `pid ${p.pid}: ${p.cmdline}`).toBe(IMAGE_UID);
    }
    const renderers = chromium.filter((p) => hasArg(p, '--type=renderer'));
    expect(renderers.length).toBeGreaterThan(0);
    for (const r of renderers) {
      expect(r.seccomp, `renderer ${r.pid}`).toBe(2);
      expect(r.seccompFilters, `renderer ${r.pid}`).toBeGreaterThan(service.seccompFilters);
      expect(r.noNewPrivs, `renderer ${r.pid}`).toBe(1);
      expect(r.userNs, `renderer ${r.pid}`).not.toBe(service.userNs);
      expect(r.pidNs, `renderer ${r.pid}`).not.toBe(service.pidNs);
    }
  });

  it("reaps Chromium's orphans: after its main process is killed, no zombie is left and renders go on", async () => {
    const before = await containerProcesses(container);
    const { browser } = serviceAndBrowser(before);
    expect(browser, JSON.stringify(before.map((p) => p.cmdline.slice(0, 80)))).toBeDefined();
    // Its crashpad handlers are the children of PID 1 (tini), not of the service: only PID 1 can reap them.
    const orphans = before.filter((p) => p.cmdline.includes('chrome_crashpad_handler'));
    expect(orphans.length).toBeGreaterThan(0);
    expect(orphans.every((p) => p.ppid === 1)).toBe(true);
    await podman(['exec', container, 'kill', '-KILL', String(browser!.pid)]);

    const png = await until(
      'a render on a new browser',
      async () => {
        const res = await post('/api/image', {
          html: '<body style="background:#0f0">',
          viewport: { width: 20, height: 20 },
        });
        return res.status === 200 && Buffer.from(await res.arrayBuffer());
      },
      30_000,
      500,
    );
    expect(decodePng(png).pixel(10, 10)).toEqual({ r: 0, g: 255, b: 0, a: 255 });
    const gone = new Set([browser!.pid, ...orphans.map((p) => p.pid)]);
    let now: ContainerProcess[] = [];
    await until(
      () =>
        `the old browser and its crashpad handlers gone, and no zombie: ${JSON.stringify(now.map((p) => [p.pid, p.ppid, p.state, p.cmdline.slice(0, 60)]))}`,
      async () => {
        now = await containerProcesses(container);
        const newBrowser = serviceAndBrowser(now).browser;
        return (
          newBrowser !== undefined &&
          newBrowser.pid !== browser!.pid &&
          now.every((p) => p.state !== 'Z' && !gone.has(p.pid))
        );
      },
      15_000,
      250,
    );
  });

  it('keeps async job results on its volume across a new container; SIGTERM stops it in the grace time, exit 0', async () => {
    const created = await podman(['exec', container, 'pagewatch', 'keys', 'create', '--name', 'container-test']);
    const key = /^key:\s+(\S+)$/m.exec(created.stdout)?.[1];
    expect(key, created.stdout).toBeDefined();
    const submit = async (path: string, body: object) => {
      const res = await post(path, { ...body, async: true }, key);
      expect(res.status, await res.clone().text()).toBe(202);
      return ((await res.json()) as { id: string }).id;
    };
    const pdfJob = await submit('/api/pdf', { html: `<h1>${MARKER}</h1>` });
    const pngJob = await submit('/api/image', { url: `${fixture.url}/blue`, viewport: { width: 60, height: 40 } });
    for (const job of [pdfJob, pngJob])
      await until(
        `job ${job} succeeded`,
        async () => ((await (await get(`/api/jobs/${job}`, key!)).json()) as { status: string }).status === 'succeeded',
        60_000,
        250,
      );

    const stopStarted = Date.now();
    await podman(['stop', '-t', String(GRACE_S), container], { timeoutMs: (GRACE_S + 30) * 1000 });
    const stoppedIn = Date.now() - stopStarted;
    expect(stoppedIn).toBeLessThan(GRACE_S * 1000);
    expect((await podman(['inspect', '--format', '{{.State.ExitCode}}', container])).stdout.trim()).toBe('0');
    const logs = await podman(['logs', container]);
    expect(logs.stdout + logs.stderr).toContain('"msg":"shutting down"');
    await podman(['rm', container]);

    await start(`${container}-again`);
    const pdf = await get(`/api/jobs/${pdfJob}/result`, key!);
    expect(pdf.status).toBe(200);
    expect((await parsePdf(Buffer.from(await pdf.arrayBuffer()))).text).toContain(MARKER);
    const png = await get(`/api/jobs/${pngJob}/result`, key!);
    expect(png.status).toBe(200);
    expect(decodePng(Buffer.from(await png.arrayBuffer())).pixel(30, 20)).toEqual({ r: 0, g: 128, b: 255, a: 255 });
  }, 180_000);
});
