// The browser fails in the ways real browsers do — killed, recycled, abandoned by a client — and the
// service answers cleanly, recovers on the next request and leaves no process behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decodePng } from '../helpers/png.js';
import { processGroup, zombiesOf } from '../helpers/processes.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const SMALL = {
  html: '<p style="margin:0;background:#0f0;height:100vh">ok</p>',
  viewport: { width: 100, height: 100 },
};

describe('browser crash', () => {
  let service: TestService;
  let fixture: FixtureServer;
  beforeAll(async () => {
    [service, fixture] = await Promise.all([startTestService(), startFixtureServer()]);
  });
  afterAll(async () => {
    await Promise.all([service?.close(), fixture?.close()]);
  });

  it('a render in flight when Chromium is killed fails with 503; the next render succeeds on a new browser', async () => {
    const oldPid = service.browsers.stats().pid!;
    expect(oldPid).toBeGreaterThan(0);
    const inFlight = service.post('/api/image', {
      html: `<p>slow</p><img src="${fixture.url}/img/dot.png?crash">`,
      delay: 10_000,
    });
    // Kill only once the render holds its page inside Chromium (a render still waiting for the browser
    // would simply get the relaunched one): the page has asked for its image.
    await until('the page to load in Chromium', () => fixture.requests.some((r) => r.path === '/img/dot.png?crash'));
    process.kill(oldPid, 'SIGKILL');
    const killedAt = Date.now();

    const res = await inFlight;
    expect(res.status).toBe(503);
    expect(Date.now() - killedAt).toBeLessThan(6000); // failed at the crash, not when the 10 s delay ended
    expect((await errorOf(res)).code).toBe('unavailable');

    const next = await service.post('/api/image', SMALL);
    expect(next.status).toBe(200);
    expect(decodePng(await bytesOf(next)).pixel(50, 50)).toMatchObject({ r: 0, g: 255, b: 0 });
    const stats = service.browsers.stats();
    expect(stats.pid).not.toBe(oldPid);
    expect(stats.restarts).toBeGreaterThanOrEqual(1);

    // Nothing of the killed browser remains: no process of its group, no unreaped child.
    await until('the killed browser to be gone', () => processGroup(oldPid).length === 0, 5000);
    expect(zombiesOf(process.pid)).toEqual([]);
  });
});

describe('browser recycling', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ render: { restartAfter: 4, concurrency: 2 } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('recycles after restartAfter renders without failing any request, and reaps the old browser', async () => {
    const pids = new Set<number>([service.browsers.stats().pid!]);
    // The successor launches in the background (~1 s) while renders continue on the old browser.
    for (let round = 0; round < 10; round++) {
      // Concurrent renders straddle the recycle point: some run on the old browser while it retires.
      const results = await Promise.all(
        Array.from({ length: 3 }, () => service.post('/api/image', { ...SMALL, delay: 100 })),
      );
      for (const res of results) expect(res.status).toBe(200);
      pids.add(service.browsers.stats().pid!);
    }
    expect(service.browsers.stats().restarts).toBeGreaterThanOrEqual(2);
    expect(pids.size).toBeGreaterThanOrEqual(3);

    const current = service.browsers.stats().pid!;
    const retired = [...pids].filter((pid) => pid !== current);
    await until(
      'the retired browsers to be gone',
      () => retired.every((pid) => processGroup(pid).length === 0),
      10_000,
    );
    // A browser killed a moment ago is a zombie until Node's SIGCHLD handler reaps it on a later turn of
    // the event loop (and a generation that lived between two samples above is not in `retired`): give the
    // reaping up to 10 s, then no zombie may be left.
    await until('every exited browser to be reaped', () => zombiesOf(process.pid).length === 0, 10_000).catch(
      () => undefined,
    );
    expect(zombiesOf(process.pid)).toEqual([]);
  });
});

describe('client disconnect', () => {
  let service: TestService;
  let fixture: FixtureServer;
  beforeAll(async () => {
    service = await startTestService({ render: { concurrency: 1 } });
    fixture = await startFixtureServer();
  });
  afterAll(async () => {
    await service?.close();
    await fixture?.close();
  });

  function abandonable(body: unknown): { done: Promise<unknown>; abort: () => void } {
    const controller = new AbortController();
    const done = fetch(`${service.url}/api/pdf`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    return { done, abort: () => controller.abort() };
  }

  it('a running render whose client goes away is stopped and frees its slot at once', async () => {
    const slow = abandonable({ url: `${fixture.url}/slow?ms=20000`, timeout: 30000 });
    await until('one render running', () => service.limiter.activeCount === 1, 5000, 20);
    const abortedAt = Date.now();
    slow.abort();
    await slow.done;
    await until('no render running', () => service.limiter.activeCount === 0, 3000, 20);
    expect(Date.now() - abortedAt).toBeLessThan(3000); // not the 20 s the page would have taken

    const next = await service.post('/api/image', SMALL);
    expect(next.status).toBe(200);
  });

  it('a queued render whose client goes away leaves the line', async () => {
    const running = abandonable({ url: `${fixture.url}/slow?ms=20000`, timeout: 30000 });
    await until('one render running', () => service.limiter.activeCount === 1, 5000, 20);
    const queued = abandonable({ html: '<p>queued</p>' });
    await until('one render queued', () => service.limiter.queuedCount === 1, 5000, 20);
    queued.abort();
    await until('the queue to empty', () => service.limiter.queuedCount === 0, 2000, 20);
    expect(service.limiter.activeCount).toBe(1);
    running.abort();
    await Promise.all([running.done, queued.done]);
    await until('no render running', () => service.limiter.activeCount === 0, 3000, 20);
  });
});
