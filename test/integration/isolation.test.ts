// Warm pages are reused between renders, so nothing one render leaves behind may be visible to the
// next: cookies, localStorage, sessionStorage, IndexedDB, HTTP cache, window.name, history.
// The service runs with one warm page, so render B always runs on the page render A used —
// checked through the pool's counter of created pages, or these tests would prove nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { sleep } from '../helpers/until.js';

const html = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html><html><body>${body}</body></html>`);
};

// Sets every kind of state, under a value unique to the render.
const SET_STATE = `<script>
  const v = new URLSearchParams(location.search).get('v');
  document.cookie = 'secret=' + v + '; max-age=3600';
  localStorage.setItem('secret', v);
  sessionStorage.setItem('secret', v);
  window.name = 'secret-' + v;
  const open = indexedDB.open('vault', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('kv');
  open.onsuccess = () => {
    const tx = open.result.transaction('kv', 'readwrite');
    tx.objectStore('kv').put(v, 'secret');
    tx.oncomplete = () => { document.body.insertAdjacentHTML('beforeend', '<div id="done">SET ' + v + '</div>'); };
  };
</script>`;

// Reports what it can see of that state as text in the PDF.
const READ_STATE = `<script>
  const report = (idb) => {
    const seen = [document.cookie.includes('secret=') ? 'COOKIE' : '', localStorage.getItem('secret') ? 'LOCAL' : '',
      sessionStorage.getItem('secret') ? 'SESSION' : '', window.name.startsWith('secret') ? 'NAME' : '', idb ? 'IDB' : ''];
    document.body.insertAdjacentHTML('beforeend', '<div id="done">SEEN[' + seen.filter(Boolean).join(',') + '] HISTORY ' + history.length + '</div>');
  };
  indexedDB.databases().then((dbs) => report(dbs.some((d) => d.name === 'vault')), () => report(false));
</script>`;

describe('render isolation on a reused warm page', () => {
  let service: TestService;
  let fixture: FixtureServer;

  beforeAll(async () => {
    fixture = await startFixtureServer();
    fixture.route('/set-state', html(SET_STATE));
    fixture.route('/read-state', html(READ_STATE));
    fixture.route('/cached.css', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/css', 'cache-control': 'public, max-age=3600' });
      res.end('body { color: black; }');
    });
    fixture.route('/uses-cached', html('<link rel="stylesheet" href="/cached.css"><p>CACHED PAGE</p>'));
    service = await startTestService({ render: { concurrency: 1, warmPages: 1 } });
  });

  afterAll(async () => {
    await service?.close();
    await fixture?.close();
  });

  async function pdfText(body: Record<string, unknown>): Promise<string> {
    const res = await service.post('/api/pdf', body);
    expect(res.status).toBe(200);
    return (await parsePdf(await bytesOf(res))).text;
  }

  it('state set by render A is absent in render B, for many A/B pairs on the same page', async () => {
    await pdfText({ html: '<p>warm up</p>' });
    const createdBefore = service.browsers.stats().pagesCreated;
    for (let i = 0; i < 8; i++) {
      const set = await pdfText({ url: `${fixture.url}/set-state?v=${i}`, waitForSelector: '#done' });
      expect(set).toContain(`SET ${i}`);
      const read = await pdfText({ url: `${fixture.url}/read-state`, waitForSelector: '#done' });
      expect(read).toContain('SEEN[]');
      // A fresh tab has the initial entry plus this navigation; more would leak the previous render's.
      expect(read).toMatch(/HISTORY [12]\b/);
    }
    // The same warm page served all 17 renders: the isolation above is the wipe's doing.
    expect(service.browsers.stats().pagesCreated).toBe(createdBefore);
  });

  it('a cross-site iframe gets no storage at all, so it has nothing to leave behind', async () => {
    // The wipe clears storage by origin. Partitioned third-party storage would need clearing by
    // storage key; it does not exist because Chromium denies a cross-site iframe storage in these
    // contexts. If a Chromium update grants it, this test fails: extend WarmPage.wipe then.
    fixture.route(
      '/storage-probe',
      html(`<script>
      const tell = (m) => parent.postMessage(m, '*');
      try { localStorage.setItem('k', 'v'); tell('LOCAL-GRANTED'); } catch { tell('LOCAL-DENIED'); }
      try { sessionStorage.setItem('k', 'v'); tell('SESSION-GRANTED'); } catch { tell('SESSION-DENIED'); }
      const open = indexedDB.open('probe', 1);
      open.onsuccess = () => tell('IDB-GRANTED');
      open.onerror = () => tell('IDB-DENIED');
    </script>`),
    );
    fixture.route(
      '/framed-probe',
      html(`<iframe src="http://localhost:${fixture.port}/storage-probe"></iframe>
      <script>addEventListener('message', (e) => document.body.insertAdjacentHTML('beforeend', '<p>' + e.data + '</p>'));</script>`),
    );
    const text = await pdfText({ url: `${fixture.url}/framed-probe`, delay: 800 });
    expect(text).toContain('LOCAL-DENIED');
    expect(text).toContain('SESSION-DENIED');
    expect(text).toContain('IDB-DENIED');
  });

  it('a service worker cannot be installed, so none can outlive its render and answer the next', async () => {
    fixture.route('/sw.js', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end("self.addEventListener('fetch', (e) => e.respondWith(new Response('FROM-SW')));");
    });
    fixture.route(
      '/register-sw',
      html(`<script>
      const say = (t) => document.body.insertAdjacentHTML('beforeend', '<p id="done">' + t + '</p>');
      // Blocked registration may reject, or never settle: report whichever comes first, after 1.5 s.
      if (!navigator.serviceWorker) say('SW-UNAVAILABLE');
      else Promise.race([
        navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => 'SW-INSTALLED', () => 'SW-REFUSED'),
        new Promise((r) => setTimeout(() => r('SW-PENDING'), 1500)),
      ]).then(say);
    </script>`),
    );
    const first = await pdfText({ url: `${fixture.url}/register-sw`, waitForSelector: '#done' });
    expect(first).toMatch(/SW-(UNAVAILABLE|REFUSED|PENDING)/);
    expect(first).not.toContain('SW-INSTALLED');
    fixture.requests.length = 0;
    const next = await pdfText({ url: `${fixture.url}/invoice` });
    expect(next).toContain('INVOICE-TEST-MARKER');
    expect(next).not.toContain('FROM-SW');
    expect(fixture.requests.some((r) => r.path === '/invoice')).toBe(true); // served by the network
  });

  it("render A's own state is visible within render A (the test can detect state at all)", async () => {
    const text = await pdfText({
      url: `${fixture.url}/set-state?v=self`,
      waitForSelector: '#done',
      js: `setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>SELF ' + localStorage.getItem('secret') + ' ' + sessionStorage.getItem('secret') + '</p>'), 0)`,
      delay: 200,
    });
    expect(text).toContain('SELF self self');
  });

  it('cookies given to render A are not sent by render B', async () => {
    await pdfText({ url: `${fixture.url}/cookies`, cookies: [{ name: 'flavour', value: 'oat', url: fixture.url }] });
    const text = await pdfText({ url: `${fixture.url}/cookies` });
    expect(text).not.toContain('flavour');
  });

  it('cookies given to an HTML render that made no request are not sent by the next render', async () => {
    // The wipe skips the cookie jar when the page reached no origin, but not after a render's own cookies.
    await pdfText({ html: '<p>A</p>', cookies: [{ name: 'flavour', value: 'oat', url: fixture.url }] });
    const text = await pdfText({ url: `${fixture.url}/cookies` });
    expect(text).not.toContain('flavour');
  });

  it('headers given to render A are not sent by render B', async () => {
    fixture.requests.length = 0;
    await pdfText({ url: `${fixture.url}/echo-headers`, headers: { 'x-tenant': 'alpha' } });
    await pdfText({ url: `${fixture.url}/echo-headers` });
    const seen = fixture.requests.filter((r) => r.path === '/echo-headers').map((r) => r.headers['x-tenant']);
    expect(seen).toEqual(['alpha', undefined]);
  });

  it('the HTTP cache of render A does not serve render B', async () => {
    fixture.requests.length = 0;
    await pdfText({ url: `${fixture.url}/uses-cached` });
    await pdfText({ url: `${fixture.url}/uses-cached` });
    expect(fixture.requests.filter((r) => r.path === '/cached.css')).toHaveLength(2);
  });

  // A warm page is unloaded after every render, whatever its document was (WarmPage.wipe): the next
  // render gets a new Document and global object. Inert HTML (render/load/inert-html.ts) only waits less.
  const unloads = () => service.browsers.stats().pagesUnloaded;

  it('a scripted HTML render is unloaded: its timers, observers and globals never reach the next render', async () => {
    await pdfText({ html: '<p>warm up</p>' });
    const [created, before] = [service.browsers.stats().pagesCreated, unloads()];
    const a = await pdfText({
      html: `<p>A-CONTENT</p><script>
        window.leftBehind = 'A';
        const mark = () => { if (document.body && !document.getElementById('leak')) document.body.insertAdjacentHTML('beforeend', '<p id="leak">LEAKED-FROM-A</p>'); };
        setInterval(mark, 1);
        new MutationObserver(mark).observe(document, { childList: true, subtree: true });
      </script>`,
    });
    expect(a).toContain('A-CONTENT');
    const b = await pdfText({ html: '<p>B-CONTENT</p>' });
    expect(b).toContain('B-CONTENT');
    expect(b).not.toContain('LEAKED');
    const c = await pdfText({
      html: `<p id="c">C</p><script>document.getElementById('c').textContent = 'GLOBAL ' + typeof window.leftBehind;</script>`,
    });
    expect(c).toContain('GLOBAL undefined');
    // A's and B's page was unloaded before the next render took it (C's wipe runs after its answer),
    // and A, B and C all ran on the one warm page.
    expect(unloads() - before).toBeGreaterThanOrEqual(2);
    expect(service.browsers.stats().pagesCreated).toBe(created);
  });

  it('inert HTML is unloaded too, and the page is clean for the next render', async () => {
    await pdfText({ html: '<p>warm up</p>' });
    const before = unloads();
    for (let i = 0; i < 3; i++) expect(await pdfText({ html: `<h1>INERT ${i}</h1>` })).toContain(`INERT ${i}`);
    expect(unloads() - before).toBeGreaterThanOrEqual(2); // the third one's wipe may still be running
    const next = await pdfText({
      html: `<p id="n">-</p><script>document.getElementById('n').textContent = 'HISTORY ' + history.length + ' NAME[' + window.name + ']';</script>`,
    });
    expect(next).toMatch(/HISTORY [12] NAME\[\]/);
  });

  it('inert HTML that reached the network is unloaded: its HTTP cache does not serve the next render', async () => {
    const page = `<link rel="stylesheet" href="${fixture.url}/cached.css"><p>STYLED</p>`;
    fixture.requests.length = 0;
    const before = unloads();
    await pdfText({ html: page });
    await pdfText({ html: page });
    expect(fixture.requests.filter((r) => r.path === '/cached.css')).toHaveLength(2);
    expect(unloads() - before).toBeGreaterThanOrEqual(1);
  });

  it('inert HTML cannot act after its render: a request its CSS makes later never happens', async () => {
    fixture.route('/late.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'set-cookie': 'late=from-A; Path=/' });
      res.end();
    });
    await pdfText({ html: '<p>warm up</p>' }); // it starts once the previous render's wipe is done
    fixture.requests.length = 0;
    const before = unloads();
    // No script and no request while it renders (so no unload); the animation loads an image 600 ms later.
    const a = await pdfText({
      html: `<style>@keyframes k { to { background-image: url(${fixture.url}/late.png) } }
        body { animation: k 50ms 600ms forwards }</style><p>A</p>`,
    });
    expect(a).toContain('A');
    await sleep(1500); // bound: 2.5 times the animation's delay; an idle page with A's tree would ask by then
    expect(fixture.requests.some((r) => r.path === '/late.png')).toBe(false);
    expect(unloads()).toBeGreaterThan(before); // A's page was unloaded, not emptied
    const b = await pdfText({ url: `${fixture.url}/cookies` });
    expect(b).not.toContain('late=');
  });

  it("a policy set by render A's markup (a CSP meta) does not bind render B", async () => {
    await pdfText({ html: `<meta http-equiv="Content-Security-Policy" content="script-src 'none'"><p>A</p>` });
    const b = await pdfText({
      html: `<p id="b">-</p><script>document.getElementById('b').textContent = 'B-SCRIPT-RAN';</script>`,
    });
    expect(b).toContain('B-SCRIPT-RAN');
  });

  it('emulation of render A (viewport, dark scheme) does not carry over to render B', async () => {
    const page =
      '<style>body{margin:0;background:#fff}@media (prefers-color-scheme: dark){body{background:#000}}</style>';
    const a = await service.post('/api/image', {
      html: page,
      viewport: { width: 300, height: 200 },
      colorScheme: 'dark',
    });
    expect(a.status).toBe(200);
    const b = await service.post('/api/image', { html: page });
    const { decodePng } = await import('../helpers/png.js');
    const png = decodePng(await bytesOf(b));
    expect([png.width, png.height]).toEqual([1280, 800]);
    expect(png.pixel(10, 10)).toMatchObject({ r: 255, g: 255, b: 255 });
  });
});
