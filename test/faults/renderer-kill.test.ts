// Chromium's renderer processes killed (SIGKILL, as the kernel's OOM killer does) at each stage of a render:
// the render in flight is answered 502 render_crashed — a crash, not a failed URL — and no page whose renderer
// died is handed to a later render. Async jobs retry a crash and, when every attempt crashes, fail saying so.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { processGroup } from '../helpers/processes.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SMALL = {
  html: '<p style="margin:0;background:#0f0;height:100vh">ok</p>',
  viewport: { width: 100, height: 100 },
};

/** The renderer processes of the service's current browser (its process group), found by their command line. */
function rendererPids(service: TestService): number[] {
  const browserPid = service.browsers.stats().pid!;
  return processGroup(browserPid)
    .map((p) => p.pid)
    .filter((pid) => {
      try {
        // Chromium rewrites its command line as one string with spaces (no NULs between arguments).
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
      } catch {
        return false; // ended while we looked
      }
    });
}

/** SIGKILL every renderer of the browser (the one rendering, and the idle warm pages' too). */
function killRenderers(service: TestService): number {
  const pids = rendererPids(service);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  return pids.length;
}

/**
 * Waits until the page tells the fixture it reached a stage (a request whose path includes `mark`). A
 * render that ends first (e.g. handed a dead page) fails the wait at once, with its answer.
 */
async function untilStage(fixture: FixtureServer, mark: string, render: Promise<Response>, what: string) {
  let ended: string | undefined;
  void render.then(async (res) => (ended = `${res.status} ${await res.clone().text()}`));
  await until(
    what,
    () => {
      if (ended) throw new Error(`the render ended (${ended}) before ${what}`);
      return fixture.requests.some((r) => r.path.includes(mark));
    },
    30_000,
    10,
  );
}

describe('renderer killed mid-render', () => {
  let service: TestService;
  let fixture: FixtureServer;
  beforeAll(async () => {
    [service, fixture] = await Promise.all([startTestService(), startFixtureServer()]);
    // The document loads; an image it holds keeps the load event (and the render) waiting for 20 s.
    fixture.route('/held-image', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<p>loading</p><img src="/slow?ms=20000&stage=load">');
    });
    // Loaded at once; tells us when it has (the render is then in its delay).
    fixture.route('/loaded-beacon', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<p>waiting</p><script>addEventListener('load', () => { new Image().src = '/img/dot.png?stage=wait'; });</script>`,
      );
    });
  });
  afterAll(async () => {
    await Promise.all([service?.close(), fixture?.close()]);
  });

  /** After a kill: the browser's own process lived on, and the next 20 renders all get a live page. */
  async function nextTwentySucceed(browserPid: number): Promise<void> {
    const statuses: number[] = [];
    const failures: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await service.post('/api/image', SMALL);
      statuses.push(res.status);
      if (res.status !== 200) failures.push(`${res.status} ${JSON.stringify(await errorOf(res))}`);
      else await res.arrayBuffer();
    }
    expect(failures).toEqual([]);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(service.browsers.stats().pid).toBe(browserPid); // a renderer crash is not a browser restart
  }

  /** Kills the renderers, then: the render in flight answers 502 render_crashed, at the crash. */
  async function killAndExpectCrashed(inFlight: Promise<Response>): Promise<void> {
    expect(killRenderers(service)).toBeGreaterThan(0);
    const killedAt = Date.now();
    const res = await inFlight;
    const body = await errorOf(res);
    expect({ status: res.status, code: body.code }).toEqual({ status: 502, code: 'render_crashed' });
    expect(body.message).toMatch(/crashed/);
    expect(body.message).not.toMatch(/could not load|ERR_|connection/i); // never blames the URL
    // At the crash, not when the page's 10-20 s hold or print would have ended (the bound browser-kill uses).
    expect(Date.now() - killedAt).toBeLessThan(6000);
  }

  it('at load (an image holds the load event): 502 render_crashed, then 20 renders succeed', async () => {
    const browserPid = service.browsers.stats().pid!;
    const inFlight = service.post('/api/image', { url: `${fixture.url}/held-image`, timeout: 30_000 });
    await untilStage(fixture, 'stage=load', inFlight, 'the page to ask for its held image');
    await killAndExpectCrashed(inFlight);
    await nextTwentySucceed(browserPid);
  });

  it('while waiting (the delay after load): 502 render_crashed, then 20 renders succeed', async () => {
    const browserPid = service.browsers.stats().pid!;
    const inFlight = service.post('/api/image', {
      url: `${fixture.url}/loaded-beacon`,
      delay: 10_000,
      timeout: 30_000,
    });
    await untilStage(fixture, 'stage=wait', inFlight, 'the page to say it has loaded');
    await killAndExpectCrashed(inFlight);
    await nextTwentySucceed(browserPid);
  });

  it('during capture (a long PDF being printed): 502 render_crashed, then 20 renders succeed', async () => {
    const browserPid = service.browsers.stats().pid!;
    // Printing 20,000 table rows (built by the page: the body limit keeps the request small)
    // takes seconds; `beforeprint` fires as the print starts.
    const html =
      `<table id="t"></table><script>` +
      `document.getElementById('t').innerHTML = '<tr><td>cell</td><td>cell</td><td>cell</td></tr>'.repeat(20000);` +
      `addEventListener('beforeprint', () => { new Image().src = '${fixture.url}/img/dot.png?stage=capture'; });` +
      `</script>`;
    const inFlight = service.post('/api/pdf', { html, timeout: 60_000 });
    await untilStage(fixture, 'stage=capture', inFlight, 'the print to start');
    await killAndExpectCrashed(inFlight);
    await nextTwentySucceed(browserPid);
  });

  it('during the wipe after the response: the render was 200, then 20 renders succeed', async () => {
    const browserPid = service.browsers.stats().pid!;
    // Unloading this page (the wipe's first act) keeps its renderer busy for 3 s: the kill lands inside the wipe.
    const html = `<p>bye</p><script>addEventListener('pagehide', () => { const end = Date.now() + 3000; while (Date.now() < end); });</script>`;
    const res = await service.post('/api/image', { html, viewport: { width: 100, height: 100 } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(killRenderers(service)).toBeGreaterThan(0);
    await nextTwentySucceed(browserPid);
  });
});

describe('renderer killed under an async job', () => {
  let service: TestService;
  let fixture: FixtureServer;
  let hooks: WebhookReceiver;
  let key: { key: string; webhookSecret: string };
  beforeAll(async () => {
    [service, fixture, hooks] = await Promise.all([
      startTestService({ jobs: { pollIntervalMs: 200, maxAttempts: 3 } }),
      startFixtureServer(),
      startWebhookReceiver(),
    ]);
    key = service.createKey('crash');
  });
  afterAll(async () => {
    await Promise.all([service?.close(), fixture?.close(), hooks?.close()]);
  });

  async function jobOf(id: string): Promise<Record<string, unknown>> {
    return (await (await service.call('GET', `/api/jobs/${id}`, key.key)).json()) as Record<string, unknown>;
  }

  /** A page that tells the fixture when it has loaded (`mark` and the attempt's count), then waits 10 s. */
  function waitingPage(mark: string) {
    return {
      html: `<script>addEventListener('load', () => { new Image().src = '${fixture.url}/img/dot.png?${mark}=' + Date.now(); });</script><p>job</p>`,
      delay: 10_000,
      timeout: 30_000,
      viewport: { width: 100, height: 100 },
      async: true,
      webhookUrl: hooks.url,
    };
  }

  const marks = (mark: string) => fixture.requests.filter((r) => r.path.includes(`${mark}=`)).length;

  it('a job whose renderer is killed mid-render is retried, succeeds and is delivered once', async () => {
    const res = await service.call('POST', '/api/image', key.key, { ...waitingPage('retried'), delay: 3000 });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    await until('the first attempt to load its page', () => marks('retried') >= 1);
    expect(killRenderers(service)).toBeGreaterThan(0);
    const job = await until(
      'the job to end',
      async () => {
        const j = await jobOf(id);
        return ['succeeded', 'failed'].includes(j.status as string) && j;
      },
      60_000,
      200,
    );
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(marks('retried')).toBe(2);
    const hits = await hooks.waitForHits(1);
    const events = hits.map((h) => verifyHit(key.webhookSecret, h)).filter((e) => e.data.jobId === id);
    expect(events.map((e) => e.type)).toEqual(['job.succeeded']);
  });

  it('a job whose renderer crashes on every attempt fails after maxAttempts with render_crashed', async () => {
    const before = hooks.hits.length;
    const res = await service.call('POST', '/api/image', key.key, waitingPage('always'));
    const { id } = (await res.json()) as { id: string };
    for (let attempt = 1; attempt <= 3; attempt++) {
      await until(`attempt ${attempt} to load its page`, () => marks('always') >= attempt, 30_000, 20);
      expect(killRenderers(service)).toBeGreaterThan(0);
    }
    const job = await until(
      'the job to end',
      async () => {
        const j = await jobOf(id);
        return ['succeeded', 'failed'].includes(j.status as string) && j;
      },
      30_000,
      200,
    );
    expect(job).toMatchObject({ status: 'failed', attempts: 3, error: { code: 'render_crashed' } });
    expect((job.error as { message: string }).message).toMatch(/crashed/);
    const hits = await hooks.waitForHits(before + 1);
    const events = hits.map((h) => verifyHit(key.webhookSecret, h)).filter((e) => e.data.jobId === id);
    expect(events.map((e) => e.type)).toEqual(['job.failed']);
  });
});

describe('renderer killed under a monitor capture', () => {
  let service: TestService;
  let fixture: FixtureServer;
  let key: string;
  beforeAll(async () => {
    [service, fixture] = await Promise.all([
      startTestService({ jobs: { pollIntervalMs: 200, maxAttempts: 3 } }),
      startFixtureServer(),
    ]);
    key = service.createKey('monitor').key;
    // Tells the fixture each time it has loaded (once per attempt).
    fixture.route('/monitored', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<p>monitored</p><script>addEventListener('load', () => { new Image().src = '/img/dot.png?capture=' + Date.now(); });</script>`,
      );
    });
  });
  afterAll(async () => {
    await Promise.all([service?.close(), fixture?.close()]);
  });

  it('a capture whose renderer is killed mid-render is retried and recorded once, succeeded', async () => {
    const created = await service.call('POST', '/api/monitors', key, {
      url: `${fixture.url}/monitored`,
      schedule: '0 0 1 1 *',
      paused: true, // captures only when run below
      capture: { viewport: { width: 200, height: 100 }, delay: 3000, timeout: 30_000 },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await service.call('POST', `/api/monitors/${id}/run`, key)).status).toBe(202);
    const loads = () => fixture.requests.filter((r) => r.path.includes('capture=')).length;
    await until('the capture to load its page', () => loads() >= 1, 30_000, 20);
    expect(killRenderers(service)).toBeGreaterThan(0);
    const captures = await until(
      'the capture to be recorded',
      async () => {
        const res = await service.call('GET', `/api/monitors/${id}/captures`, key);
        const { items } = (await res.json()) as { items: { status: string; error?: unknown }[] };
        return items.length > 0 && items;
      },
      60_000,
      200,
    );
    expect(captures).toHaveLength(1);
    expect(captures[0]).toMatchObject({ status: 'succeeded' });
    expect(loads()).toBe(2); // the killed attempt and the one that succeeded
  });
});
