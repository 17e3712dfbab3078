// Hostile pages — endless loops, memory hogs, dialog storms, window floods, navigation loops,
// documents that never finish, downloads — each end within their `timeout` with a clear answer
// (never a 500), leave no trace for the next render and no process behind.
// The service runs with one render slot and one warm page, so the render right after a hostile one
// runs on the page the hostile one used (or on its replacement) — the hardest case for recovery.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, playwrightArtifactDirs } from '../helpers/files-under.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { processGroup, zombiesOf } from '../helpers/processes.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';

const TIMEOUT = 5000;
/** Functional bound of the contract (a render ends at its timeout, plus answer/teardown), not a benchmark. */
const WALL_MARGIN = 5000;

interface Outcome {
  name: string;
  status: number;
  code?: string;
  message?: string;
  ms: number;
  text?: string;
}
const outcomes: Outcome[] = [];

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"></head><body>${body}</body></html>`;
const clickDownload = (href: string) =>
  `const a = document.createElement('a'); a.href = ${href}; a.download = 'x.txt'; document.body.append(a); a.click();`;
const serve = (body: string) => (_req: unknown, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(page(body));
};

/** Files under os.tmpdir()/playwright-artifacts-* (where Playwright would put downloads). */
const artifactFiles = () => new Set(playwrightArtifactDirs().flatMap(filesUnder));

describe('hostile pages', () => {
  let service: TestService;
  let fixture: FixtureServer;
  const hanging = new Set<ServerResponse>();
  let popupHits = 0;
  /** When each popup (by its query string) last said it is still open. */
  const popupLastBeat = new Map<string, number>();
  let artifactsBefore: Set<string>;

  beforeAll(async () => {
    artifactsBefore = artifactFiles();
    fixture = await startFixtureServer();
    fixture.route('/reload-loop', serve('<p>RELOAD</p><script>onload=()=>location.reload()</script>'));
    fixture.route('/href-loop', serve(`<p>HREF</p><script>location.href='?n='+Math.random()</script>`));
    fixture.route('/never-ends', (_req, res) => {
      hanging.add(res);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write(
        '<!doctype html><html><head><meta charset="utf-8"><title>never</title></head><body><p>PARTIAL-BODY</p>',
      );
    });
    fixture.route('/attachment', (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="evil.bin"',
      });
      res.end('DOWNLOADED-BYTES');
    });
    fixture.route('/dl-same-origin', serve(`<p>DL-PAGE</p><script>${clickDownload(`'/attachment'`)}</script>`));
    // A popup that stays open says so: it pings the fixture every 100 ms.
    fixture.route('/popup-target', (req, res) => {
      popupHits++;
      serve('<script>setInterval(()=>fetch("/popup-alive"+location.search),100)</script>')(req, res);
    });
    fixture.route('/popup-alive', (req, res) => {
      popupLastBeat.set(new URL(req.url ?? '/', 'http://x').search, Date.now());
      res.writeHead(204).end();
    });
    fixture.route(
      '/set-state',
      serve(`<p>STATE-SET</p><script>
      document.cookie = 'hostile=A1; max-age=3600'; localStorage.setItem('hostile', 'A1');
      for (let i = 0; i < 50; i++) alert(i);
      setInterval(() => { document.cookie = 'hostile=A2; max-age=3600'; localStorage.setItem('hostile', 'A2'); }, 5);
    </script>`),
    );
    fixture.route(
      '/read-state',
      serve(
        `<script>document.write('SEEN[' + document.cookie + '|' + (localStorage.getItem('hostile') ?? '') + ']')</script>`,
      ),
    );
    service = await startTestService({ render: { concurrency: 1, warmPages: 1 } });
  });

  afterAll(async () => {
    for (const res of hanging) res.destroy();
    console.table(outcomes.map(({ text: _t, ...o }) => o));
    await service?.close();
    await fixture?.close();
  });

  /** A hostile render: ends within the wall limit, with the one status it must have (never a 500). */
  async function hostile(name: string, body: Record<string, unknown>, expected: number): Promise<Outcome> {
    const started = performance.now();
    const timeout = typeof body.timeout === 'number' ? body.timeout : TIMEOUT;
    const res = await service.post('/api/pdf', { ...body, timeout });
    const out: Outcome = { name, status: res.status, ms: 0 };
    if (res.ok) out.text = (await parsePdf(await bytesOf(res))).text;
    else Object.assign(out, await errorOf(res));
    out.ms = Math.round(performance.now() - started);
    outcomes.push(out);
    expect(out.status, `${name}: ${out.code} ${out.message}`).not.toBe(500);
    expect(out.status, `${name} got ${out.status} ${out.code}: ${out.message}`).toBe(expected);
    expect(out.ms, `${name} wall time`).toBeLessThan(timeout + WALL_MARGIN);
    if (out.status === 504) expect(out.code).toBe('render_timeout');
    if (out.status === 422) expect(out.code).toBe('render_failed');
    if (out.status === 502) expect(out.code).toBe('render_crashed');
    return out;
  }

  /** The render after a hostile one succeeds, promptly, with the right content. */
  async function nextRenderWorks(): Promise<void> {
    const marker = `NEXT-OK-${Math.random().toString(36).slice(2, 8)}`;
    const started = performance.now();
    const res = await service.post('/api/pdf', { html: page(`<h1>${marker}</h1>`), timeout: 10_000 });
    const body = await bytesOf(res);
    expect(res.status, body.toString('utf8').slice(0, 500)).toBe(200);
    expect((await parsePdf(body)).text).toContain(marker);
    expect(performance.now() - started).toBeLessThan(8000);
  }

  it('an infinite loop ends with 504 render_timeout', async () => {
    const out = await hostile('infinite loop', { html: page('<p>LOOP</p><script>for(;;){}</script>') }, 504);
    expect(out.ms).toBeGreaterThanOrEqual(TIMEOUT - 100);
    await nextRenderWorks();
  });

  it('endless allocation crashes the page (502 render_crashed); the browser stays usable', async () => {
    const pid = service.browsers.stats().pid;
    // The renderer dies when its heap is full, which takes a few seconds on a quiet machine and more
    // on a loaded one: the timeout is long enough that the crash, not the clock, ends the render.
    await hostile(
      'memory without end',
      {
        html: page('<script>const a=[];for(;;)a.push(new Array(1e6).fill(Math.random()))</script>'),
        timeout: 30_000,
      },
      502,
    );
    const stats = service.browsers.stats();
    expect(stats.up).toBe(true);
    expect(stats.pid).toBe(pid); // only the renderer died, not the browser
    await nextRenderWorks();
  });

  it('dialogs are dismissed: a burst of them renders; an endless storm ends at the timeout', async () => {
    // Each dismissal is a round trip to the browser (1000 alerts outlast a 5 s timeout on a loaded
    // machine, and might not on a fast one): 20 finish in well under a second anywhere.
    const burst = await hostile(
      '20 alerts',
      { html: page('<p>ALERTS</p><script>for(let i=0;i<20;i++)alert(i)</script>') },
      200,
    );
    expect(burst.text).toContain('ALERTS');
    await nextRenderWorks();
    await hostile('endless alerts', { html: page(`<script>for(;;)alert('x')</script>`) }, 504);
    await nextRenderWorks();
    await hostile('endless confirm', { html: page(`<script>for(;;)confirm('x')</script>`) }, 504);
    await nextRenderWorks();
  });

  it('window.open floods render and leave no window behind', async () => {
    // What is observable from outside: (1) a popup that loads a URL makes a request the fixture sees,
    // and one left open keeps pinging the fixture (popup-alive heartbeats); (2) a popup to another site gets a renderer process of its own in the browser's process group,
    // so lingering popups would grow the group; (3) the pool's counters and the next render's latency.
    // The popup blocker stops window.open without a user gesture — but every Playwright evaluate
    // (setContent included) runs with userGesture: true, which lets the page open one popup per
    // evaluate; guardPage closes those at once. So: a few popups per render at most, none lingering.
    await nextRenderWorks(); // steady state: warm page, renderer and utility processes all started
    const pid = service.browsers.stats().pid!;
    const chromiums = () => processGroup(pid).filter((p) => p.comm.includes('chrom')).length;
    const before = chromiums();
    const createdBefore = service.browsers.stats().pagesCreated;
    // localhost ≠ 127.0.0.1: a cross-site popup, so Chromium would give it a process of its own.
    const target = `${fixture.url.replace('127.0.0.1', 'localhost')}/popup-target`;
    const flood = `<p>FLOOD</p><script>for(let i=0;i<200;i++)window.open(i%2?'about:blank':'${target}?i='+i)</script>`;
    const interval = `<p>INTERVAL</p><script>setInterval(()=>window.open('${target}?t='+Date.now()),10)</script>`;
    const perRender: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const [name, html] of [
        ['window.open x200', flood],
        ['window.open interval', interval],
      ] as const) {
        const hitsBefore = popupHits;
        expect((await hostile(name, { html: page(html), delay: 300 }, 200)).text).toMatch(/FLOOD|INTERVAL/);
        perRender.push(popupHits - hitsBefore);
      }
    }
    await nextRenderWorks();
    console.log(
      `popup loads per render: ${perRender.join(',')}; chromium processes before: ${before}, after: ${chromiums()}`,
    );
    // Without the popup blocker, the flood alone would load 100 popups per render (and hang the render).
    // A few do get through: Playwright runs each evaluate (readiness polls included) as a user gesture,
    // which lets the page open one window per gesture. They are closed at once and go through the
    // egress proxy like any request; what matters is that none lingers (checked above and below).
    expect(Math.max(...perRender), `popup loads per render: ${perRender.join(',')}`).toBeLessThanOrEqual(10);
    // An open popup pings every 100 ms for as long as it lives. A ping sent just before its popup closed
    // can land late on a loaded machine (it passes the egress proxy), so what shows that none lingers is
    // a quiet second: ten ping periods without one. A popup still open never goes quiet; 10 s bounds it.
    const quietFor = (ms: number) => [...popupLastBeat.values()].every((at) => Date.now() - at >= ms);
    await until(
      () =>
        `popups to stop pinging; still pinging: ${[...popupLastBeat]
          .filter(([, at]) => Date.now() - at < 1000)
          .map(([id]) => id)
          .join(' ')}`,
      () => quietFor(1000),
      10_000,
    );
    await until(
      () => `chromium processes back to ${before} (+1); ${chromiums()} now`,
      () => chromiums() <= before + 1,
      5000,
    );
    const stats = service.browsers.stats();
    expect(stats.pid).toBe(pid);
    expect(stats.pagesCreated - createdBefore).toBeLessThanOrEqual(1); // successful renders reuse the page
    expect(stats.warmPages).toBeLessThanOrEqual(1);
  });

  it('self-navigation loops: reloading after load is a 422; navigating before load never loads (504)', async () => {
    const reload = await hostile('reload on every load', { url: `${fixture.url}/reload-loop` }, 422);
    expect(reload.message).toMatch(/kept navigating itself/);
    await nextRenderWorks();
    // Each navigation replaces the document before its load event: the page is never loaded.
    await hostile('location.href loop', { url: `${fixture.url}/href-loop` }, 504);
    await nextRenderWorks();
  });

  it('a document that never finishes loading times out (load), and domcontentloaded cannot save it', async () => {
    await hostile('never ends (load)', { url: `${fixture.url}/never-ends` }, 504);
    await nextRenderWorks();
    // The parser has not seen the end of the document, so DOMContentLoaded never fires either.
    await hostile(
      'never ends (domcontentloaded)',
      { url: `${fixture.url}/never-ends`, waitUntil: 'domcontentloaded' },
      504,
    );
    await nextRenderWorks();
  });

  it('downloads: an attachment document is a clear 422; scripted downloads render; nothing reaches the disk', async () => {
    const att = await hostile('attachment as document', { url: `${fixture.url}/attachment` }, 422);
    expect(att.message).toMatch(/download/i);
    await nextRenderWorks();
    const local = `<p>DL-PAGE</p><script>${clickDownload(`URL.createObjectURL(new Blob(['BLOB']))`)} ${clickDownload(`'data:text/plain,DATA'`)}</script>`;
    expect((await hostile('scripted blob: + data: downloads', { html: page(local), delay: 300 }, 200)).text).toContain(
      'DL-PAGE',
    );
    expect(
      (await hostile('scripted same-origin download (url)', { url: `${fixture.url}/dl-same-origin`, delay: 300 }, 200))
        .text,
    ).toContain('DL-PAGE');
    await nextRenderWorks();
    // A bounded wait: Chromium creates a download's file as the download starts, and these are a few
    // bytes from loopback; half a second after the next render has finished, any would be on disk.
    await sleep(500); // bound: a started download's file would be on disk by now (see above)
    expect([...artifactFiles()].filter((f) => !artifactsBefore.has(f))).toEqual([]);
  });

  // BUG (see report): a script navigation that turns into a download before `load` — an a.download
  // click to another origin (every http URL is another origin for an `html` source) — leaves
  // Playwright waiting for a load that never comes, although the document is complete: 504 after
  // the whole timeout instead of a render.
  it('a scripted download of an http URL from an html source renders', async () => {
    const html = page(`<p>DL-HTTP</p><script>${clickDownload(`'${fixture.url}/attachment'`)}</script>`);
    const out = await hostile('scripted http download (html)', { html, delay: 300 }, 200);
    expect(out.text).toContain('DL-HTTP');
    await nextRenderWorks();
    expect([...artifactFiles()].filter((f) => !artifactsBefore.has(f))).toEqual([]);
  });

  it('a cookie and localStorage set by a hostile but successful render are gone in the next', async () => {
    await nextRenderWorks(); // the pool is settled: no replacement page is still being created
    const created = service.browsers.stats().pagesCreated;
    const a = await hostile(
      'state setter with alerts + interval',
      { url: `${fixture.url}/set-state`, delay: 300 },
      200,
    );
    expect(a.text).toContain('STATE-SET');
    const res = await service.post('/api/pdf', { url: `${fixture.url}/read-state` });
    expect(res.status).toBe(200);
    expect((await parsePdf(await bytesOf(res))).text.replace(/\s/g, '')).toContain('SEEN[|]');
    const readReq = fixture.requests.filter((r) => r.path === '/read-state').at(-1);
    expect(readReq?.headers.cookie).toBeUndefined();
    expect(service.browsers.stats().pagesCreated).toBe(created); // B ran on A's (wiped) page
  });

  it('after all of the above: no 500, no zombie children, the browser still renders', async () => {
    expect(outcomes.length).toBeGreaterThanOrEqual(19);
    expect(outcomes.filter((o) => o.status === 500)).toEqual([]);
    await nextRenderWorks();
    await until('no zombie children', () => zombiesOf(process.pid).length === 0, 3000);
  });
});
