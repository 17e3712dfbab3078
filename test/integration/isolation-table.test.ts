// The isolation guarantee of reused warm pages, as a table: one row per kind of state a page can keep.
// Each row runs three renders on the ONE warm page of a service with `warmPages: 1, concurrency: 1`:
//   render 1 sets the state and (the positive control) its probe reports seeing it within render 1
//   itself, so the row cannot pass because the probe is blind; where render 1 must carry no script (an
//   attack by inert HTML, which once skipped the unload), a separate scripted control render shows the
//   probe sees it instead; render 2 runs the same probe and must see nothing.
// The pool's created-pages counter is checked around every row: render 2 ran on render 1's page, or the
// row would prove nothing about the wipe; for state no wipe can clear (HTTP auth), the page must instead
// have been replaced with its context. Probes report what they see as text in the PDF ("SEEN[...]"), or as pixels
// of a PNG where that is the only way (the style-sheet set).
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, playwrightArtifactDirs } from '../helpers/files-under.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng, type DecodedPng } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';

let service: TestService;
let fx: FixtureServer;

// ---------------------------------------------------------------------------------------------------
// Pages and counters the rows use, served by the fixture (one origin, so storage is shared by origin).

const pages = new Map<string, string>();
/** Serves `doc` at /p/<name> on the fixture; the render asks for it there and waits for the probe. */
function served(name: string, doc: string): Render {
  pages.set(`/p/${name}`, doc);
  return { body: () => ({ url: `${fx.url}/p/${name}`, waitForSelector: '#done' }) };
}
/**
 * `doc` as the render's html (Page.setContent on whatever document the page holds: no navigation), so a
 * document render 1 left in place would be written over, not replaced. `__FX__` stands for the fixture.
 */
function inline(doc: string, extra: Record<string, unknown> = {}): Render {
  return { body: () => ({ html: doc.replaceAll('__FX__', fx.url), waitForSelector: '#done', ...extra }) };
}

/**
 * A document that runs `set` (leaves the state behind), then `probe` (an async function body returning
 * what it sees of the state, '' for nothing) and prints "SEEN[<that>]" in #done.
 */
function probeDoc(set: string, probe: string, { head = '', markup = '' } = {}): string {
  // No global declarations: a document written over another one (setContent) shares its global scope.
  return `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${markup}<script>
  (async () => {
    const say = (t) => document.body.insertAdjacentHTML('beforeend', '<p id="done">' + t + '</p>');
    const pause = (ms) => new Promise((r) => setTimeout(r, ms));
    ${set}
    const seen = await (async () => { ${probe} })();
    say('SEEN[' + seen + ']');
  })().catch((e) => document.body.insertAdjacentHTML('beforeend', '<p id="done">PROBE-ERROR ' + e + '</p>'));
</script></body></html>`;
}

const ticks = new Map<string, number>();
let cacheHits = 0;
const authSeen: { path: string; authorization: string | undefined }[] = [];
const DOWNLOAD_MARKER = `DOWNLOAD-MARKER-${process.pid}-${Date.now()}`;

function send(res: ServerResponse, body: string, headers: Record<string, string> = {}, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(body);
}

/** Files under `dir` whose content holds `marker`; large or unreadable files are skipped. */
function filesHolding(dir: string, marker: string): string[] {
  return filesUnder(dir).filter((path) => {
    try {
      return statSync(path).size < 1_000_000 && readFileSync(path).includes(marker);
    } catch {
      return false; // removed meanwhile, or not ours to read
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// The table.

interface Render {
  endpoint?: 'pdf' | 'image';
  body: () => Record<string, unknown>;
}
interface Seen {
  text: string;
  png?: DecodedPng;
}
interface Row {
  name: string;
  /** A separate scripted render showing the probe detects the state, when render 1 must stay inert. */
  control?: { render: Render; sees: (o: Seen) => void };
  /** Render 1: leaves the state behind. */
  set: Render;
  /** Render 1's own output: its probe saw the state (the positive control). */
  setSees: (o: Seen) => void | Promise<void>;
  /** Render 2, on the same warm page: the probe again. */
  read: Render;
  /** Render 2 saw nothing of render 1. */
  readSees: (o: Seen) => void | Promise<void>;
  before?: () => void;
  /**
   * State Chromium keeps per context with no call to clear it: the page must be replaced (with its
   * context) instead of wiped, so render 2 runs on a new warm page.
   */
  replaced?: true;
}

const nothing = (o: Seen) => expect(o.text).toContain('SEEN[]');
const sees = (re: RegExp) => (o: Seen) => expect(o.text).toMatch(re);

/** The common shape: render 1 = set + probe on a fixture page, render 2 = the probe alone. */
function row(
  name: string,
  set: string,
  probe: string,
  shows: RegExp,
  opts: { head?: string; markup?: string; read?: 'url' | 'html'; setExtra?: Record<string, unknown> } = {},
): Row {
  const slug = name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  const setRender = served(`${slug}-set`, probeDoc(set, probe, opts));
  const readDoc = probeDoc('', probe, { markup: opts.markup ?? '' });
  return {
    name,
    set: opts.setExtra ? { body: () => ({ ...setRender.body(), ...opts.setExtra }) } : setRender,
    setSees: sees(shows),
    read: opts.read === 'html' ? inline(readDoc) : served(`${slug}-read`, readDoc),
    readSees: nothing,
  };
}

// Counting ticks at the fixture over 500 ms (ten periods of the 50 ms intervals below).
const countTicks = (kind: string) => `
  const count = async () => Number(await (await fetch('__FX__/c/ticks?k=${kind}', { cache: 'no-store' })).text());
  const n0 = await count();
  await pause(500); // bound: ten periods of the 50 ms interval that ticks
  const n1 = await count();
  return n1 > n0 ? 'TICKS+' + (n1 - n0) : '';`;

/** After render 2: the tick counter stands still for 1 s (twenty periods of a 50 ms interval). */
async function ticksStandStill(kind: string): Promise<void> {
  const before = ticks.get(kind) ?? 0;
  await sleep(1000); // bound: twenty periods of render 1's 50 ms interval; any survivor would tick
  expect(ticks.get(kind) ?? 0, `${kind} ticks after render 2`).toBe(before);
}

const PROBE_PERF = `
  const seen = new Set();
  const note = (list) => list.getEntries().forEach((e) => seen.add((e.entryType || '') + ':' + (e.id || '') + ':' + (e.identifier || '') + ':' + (e.name || '')));
  new PerformanceObserver(note).observe({ type: 'largest-contentful-paint', buffered: true });
  new PerformanceObserver(note).observe({ type: 'element', buffered: true });
  const victims = () => [...seen, ...performance.getEntries().map((e) => e.entryType + ':' + (e.id || '') + ':' + (e.identifier || '') + ':' + e.name)].filter((s) => /victim/.test(s));
  // bound: 2 s (forty 50 ms polls) for the first paint's entries; buffered ones come in the observer's first task
  for (let i = 0; i < 40 && victims().length === 0; i++) await pause(50);
  return [...new Set(victims())].join(',');`;
const VICTIM_MARKUP = `<p elementtiming="victim-secret" id="victim">VICTIM TEXT</p><img elementtiming="victim-img" id="victim-img" width="40" height="40" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==">`;

// Without credentials the fetch never settles (headless Chromium waits on a login prompt nobody answers);
// with cached ones it is answered at once, so 1 s tells them apart. (bound: 1 s)
const PROBE_AUTH = `const r = await fetch(location.origin + '/secure/inner', { cache: 'no-store', signal: AbortSignal.timeout(1000) }).catch(() => undefined); return r?.status === 200 ? 'AUTH-CACHED' : '';`;
/** Render 2 of the HTTP auth rows: a page of the same origin (no auth of its own) asks for a protected path. */
const authRead = served('auth-read', probeDoc('', PROBE_AUTH));
/** Where authSeen stood when render 2 started. */
let authSeenBefore = 0;
async function authNotSent(o: Seen): Promise<void> {
  nothing(o);
  const asked = authSeen.slice(authSeenBefore).filter((r) => r.path === '/secure/inner');
  expect(asked.length).toBeGreaterThan(0);
  expect(asked.map((r) => r.authorization)).toEqual(asked.map(() => undefined));
}

/**
 * Permissions: the service grants none, but without a hold a page changes states itself by asking (a
 * request nobody answers is dismissed, and Chromium then reports "denied" for the origin, which
 * Browser.resetPermissions does not undo). The warm page's context holds every permission at "prompt"
 * (src/render/browser/permissions.ts), so asking changes nothing. Render 0 (the control) reads the states before
 * render 1 asks for each; render 1 and render 2 must read the same. Without the hold, render 1 reads
 * "denied" (seen when the hold was taken out).
 */
function permissionsRow(): Row {
  const base = row(
    'permissions (geolocation, notifications, clipboard, storage)',
    `await Promise.race([Notification.requestPermission().catch(() => undefined), pause(1000)]); // bound: a dismissed request settles at once
     await Promise.race([new Promise((r) => navigator.geolocation.getCurrentPosition(r, r, { timeout: 500 })), pause(1000)]); // same bound
     await navigator.storage.persist().catch(() => undefined);
     await navigator.clipboard.readText().catch(() => undefined);`,
    `const names = ['geolocation', 'notifications', 'clipboard-read', 'clipboard-write', 'persistent-storage', 'camera', 'microphone', 'midi'];
     const out = [];
     for (const name of names) { try { out.push(name + '=' + (await navigator.permissions.query({ name })).state); } catch { out.push(name + '=?'); } }
     return out.join(',');`,
    /SEEN\[geolocation=/,
  );
  let before = '';
  const states = (o: Seen) => /SEEN\[([^\]]*)\]/.exec(o.text)?.[1] ?? `no states in ${o.text}`;
  return {
    ...base,
    control: {
      render: base.read,
      sees: (o) => {
        before = states(o);
      },
    },
    setSees: (o) => {
      expect(before).toMatch(/^geolocation=prompt,notifications=prompt,clipboard-read=prompt/);
      expect(states(o), 'render 1 changed a state by asking').toBe(before);
    },
    readSees: (o) => expect(states(o)).toBe(before),
  };
}

const rows: Row[] = [
  row(
    'cookies (document.cookie)',
    `document.cookie = 'leak=1; max-age=3600';`,
    `return document.cookie.includes('leak=') ? 'COOKIE' : '';`,
    /SEEN\[COOKIE\]/,
  ),
  row(
    'localStorage',
    `localStorage.setItem('leak', '1');`,
    `return localStorage.getItem('leak') ? 'LOCAL' : '';`,
    /SEEN\[LOCAL\]/,
  ),
  row(
    'sessionStorage',
    `sessionStorage.setItem('leak', '1');`,
    `return sessionStorage.getItem('leak') ? 'SESSION' : '';`,
    /SEEN\[SESSION\]/,
  ),
  row(
    'IndexedDB',
    `await new Promise((ok, fail) => { const o = indexedDB.open('vault', 1);
      o.onupgradeneeded = () => o.result.createObjectStore('kv');
      o.onerror = () => fail(o.error);
      o.onsuccess = () => { const tx = o.result.transaction('kv', 'readwrite'); tx.objectStore('kv').put('v', 'k'); tx.oncomplete = () => { o.result.close(); ok(); }; }; });`,
    `return (await indexedDB.databases()).some((d) => d.name === 'vault') ? 'IDB' : '';`,
    /SEEN\[IDB\]/,
  ),
  row(
    'Cache Storage (caches.open)',
    `await (await caches.open('vault')).put('/leak', new Response('v'));`,
    `return (await caches.keys()).join(',');`,
    /SEEN\[vault\]/,
  ),
  {
    // The fixture counts hits of a resource cacheable for an hour; its body names the hit that served it.
    ...row(
      'HTTP cache',
      `await fetch('/c/cacheable');`,
      `return await (await fetch('/c/cacheable')).text();`,
      /SEEN\[hit-1\]/,
    ),
    readSees: (o) => expect(o.text).toContain('SEEN[hit-2]'), // from the network, not render 1's cache
    before: () => {
      cacheHits = 0;
    },
  },
  {
    // Blocked, so there is no positive control of an installed worker: render 1 shows it could not install.
    ...row(
      'service worker (blocked)',
      `if (navigator.serviceWorker) await Promise.race([
        navigator.serviceWorker.register('/c/sw.js').then(() => navigator.serviceWorker.ready),
        pause(1500), // bound: registration when blocked may never settle; 1.5 s is many times an install here
      ]).catch(() => undefined);`,
      `const regs = navigator.serviceWorker ? await navigator.serviceWorker.getRegistrations() : [];
       const body = await (await fetch('/c/sw-target', { cache: 'no-store' })).text();
       return [regs.length ? 'REGISTERED' : '', navigator.serviceWorker?.controller ? 'CONTROLLED' : '', body.includes('FROM-SW') ? 'FROM-SW' : ''].filter(Boolean).join(',');`,
      /SEEN\[\]/,
    ),
  },
  row('window.name', `window.name = 'leak-name';`, `return window.name;`, /SEEN\[leak-name\]/),
  row(
    'history length',
    `for (let i = 0; i < 3; i++) history.pushState({}, '', '?step=' + i);`,
    // A fresh tab has its initial entry plus this navigation: 1 or 2.
    `return history.length > 2 ? 'HISTORY-' + history.length : '';`,
    /SEEN\[HISTORY-\d+\]/,
  ),
  {
    ...row(
      'timers (setInterval fetching a counter)',
      `setInterval(() => fetch('/c/tick?k=timer', { cache: 'no-store' }), 50);`,
      countTicks('timer'),
      /SEEN\[TICKS\+\d+\]/,
      { read: 'html' },
    ),
    readSees: async (o) => {
      nothing(o); // did not move during render 2
      await ticksStandStill('timer'); // nor after it
    },
  },
  {
    ...row(
      'dedicated Worker (interval fetching a counter)',
      `const src = "setInterval(() => fetch('" + location.origin + "/c/tick?k=worker', { cache: 'no-store' }), 50)";
       window.w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));`,
      countTicks('worker'),
      /SEEN\[TICKS\+\d+\]/,
      { read: 'html' },
    ),
    readSees: async (o) => {
      nothing(o);
      await ticksStandStill('worker');
    },
  },
  row(
    'SharedWorker (counter of connections)',
    `const first = new SharedWorker('/c/shared.js', { name: 'vault' });
     window.keep = first;
     await new Promise((r) => { first.port.onmessage = r; });`,
    `const w = new SharedWorker('/c/shared.js', { name: 'vault' });
     const n = await Promise.race([new Promise((r) => { w.port.onmessage = (e) => r(e.data); }), pause(2000).then(() => 'NO-ANSWER')]); // bound: a live worker answers at once
     return n === 1 ? '' : 'SHARED-' + n;`,
    /SEEN\[SHARED-2\]/,
  ),
  row(
    'BroadcastChannel from a lingering context',
    `const bc = new BroadcastChannel('vault'); setInterval(() => bc.postMessage('leak'), 50);`,
    `const got = []; const ch = new BroadcastChannel('vault'); ch.onmessage = (e) => got.push(e.data);
     await pause(500); // bound: ten periods of render 1's 50 ms interval
     return got.length ? 'BC-' + got[0] : '';`,
    /SEEN\[BC-leak\]/,
  ),
  row(
    'Web Locks held by render 1',
    `navigator.locks.request('vault', () => new Promise(() => undefined)); await pause(0);`,
    `const q = await navigator.locks.query(); return q.held.some((l) => l.name === 'vault') ? 'LOCK' : '';`,
    /SEEN\[LOCK\]/,
  ),
  {
    // Inert HTML, no script: once such a page was only emptied (setContent('') keeps the same Document,
    // and Chromium keeps the preferred style-sheet set on it). Its second, titled red sheet is the probe: with "x" the preferred set it is disabled (white), as it must
    // be in render 2 only if the preferred set name outlived render 1.
    name: 'style-sheet set (preferred set name, inert HTML)',
    set: {
      endpoint: 'image',
      body: () => ({ html: '<style title="x"></style><style title="brand">body{background:red}</style><p>A</p>' }),
    },
    setSees: (o) => expect(o.png!.pixel(2, 2)).toMatchObject({ r: 255, g: 255, b: 255 }),
    read: { endpoint: 'image', body: () => ({ html: '<style title="brand">body{background:red}</style><p>B</p>' }) },
    readSees: (o) => expect(o.png!.pixel(2, 2)).toMatchObject({ r: 255, g: 0, b: 0 }),
  },
  {
    // Render 1 is inert HTML (no script: the unload it once skipped), so the control is a scripted render
    // of the same markup and probe.
    name: 'performance timeline (element timing, LCP, getEntries; inert HTML)',
    control: { render: inline(probeDoc('', PROBE_PERF, { markup: VICTIM_MARKUP })), sees: sees(/SEEN\[[^\]]*victim/) },
    set: { body: () => ({ html: VICTIM_MARKUP }) },
    setSees: sees(/VICTIM TEXT/),
    read: inline(probeDoc('', PROBE_PERF, { markup: '<p>reader</p>' })),
    readSees: nothing,
  },
  row(
    'focus and selection',
    `document.getElementById('field').focus(); getSelection().selectAllChildren(document.getElementById('txt'));`,
    `const a = document.activeElement;
     return [a && a !== document.body ? 'FOCUS-' + a.id : '', getSelection().toString() ? 'SEL-' + getSelection().toString() : ''].filter(Boolean).join(',');`,
    /SEEN\[FOCUS-field,SEL-secret text\]/,
    { markup: '<input id="field" value="v"><p id="txt">secret text</p>', read: 'html' },
  ),
  row(
    'scroll position',
    `scrollTo(0, 3000); await new Promise((r) => requestAnimationFrame(r));`,
    `return scrollY > 0 ? 'SCROLL-' + scrollY : '';`,
    /SEEN\[SCROLL-3000\]/,
    { markup: '<div style="height:6000px">tall</div>', read: 'html' },
  ),
  permissionsRow(),
  {
    // The API refuses a url with credentials (tested below); a page can still go to one itself.
    name: 'HTTP auth: a page that goes to a URL with credentials (Basic)',
    replaced: true,
    set: served('auth-nav', `<script>location.href = 'http://alice:S3cret@' + location.host + '/secure/a';</script>`),
    setSees: sees(/SEEN\[AUTH-CACHED\]/),
    read: authRead,
    readSees: authNotSent,
  },
  {
    name: 'HTTP auth: an XHR with credentials (Basic)',
    replaced: true,
    set: served(
      'auth-xhr',
      probeDoc(
        `await new Promise((r) => { const x = new XMLHttpRequest(); x.open('GET', '/secure/x', true, 'alice', 'S3cret'); x.onloadend = r; x.send(); });`,
        PROBE_AUTH,
      ),
    ),
    setSees: sees(/SEEN\[AUTH-CACHED\]/),
    read: authRead,
    readSees: authNotSent,
  },
  {
    name: 'downloads (refused, nothing saved)',
    set: served(
      'download',
      probeDoc(`document.getElementById('dl').click(); await pause(0);`, `return 'CLICKED';`, {
        markup: '<a id="dl" href="/c/download" download="leak.bin">dl</a>',
      }),
    ),
    setSees: async (o) => {
      expect(o.text).toContain('SEEN[CLICKED]');
      await until(
        'the download to be asked for at the fixture',
        () => fx.requests.some((r) => r.path === '/c/download'),
        5000,
      );
    },
    read: served('download-read', probeDoc('', `return '';`)),
    readSees: (o) => {
      nothing(o);
      const saved = [service.dataDir, ...playwrightArtifactDirs()].flatMap((d) => filesHolding(d, DOWNLOAD_MARKER));
      expect(saved).toEqual([]);
    },
  },
  row(
    'CSP meta (connect-src none)',
    '',
    `try { await fetch('__FX__/c/ping', { cache: 'no-store' }); return ''; } catch { return 'CSP-BLOCKED'; }`,
    /SEEN\[CSP-BLOCKED\]/,
    { head: `<meta http-equiv="Content-Security-Policy" content="connect-src 'none'">`, read: 'html' },
  ),
  row(
    'referrer policy meta (no-referrer)',
    '',
    `const t = await (await fetch('/c/referer', { cache: 'no-store' })).text(); return t === 'NOREF' ? 'NOREF' : '';`,
    /SEEN\[NOREF\]/,
    { head: '<meta name="referrer" content="no-referrer">' },
  ),
  row(
    'emulation (viewport, color scheme, reduced motion)',
    '',
    `return [matchMedia('(prefers-color-scheme: dark)').matches ? 'DARK' : '', matchMedia('(prefers-reduced-motion: reduce)').matches ? 'REDUCED' : '', innerWidth !== 1280 ? 'WIDTH-' + innerWidth : ''].filter(Boolean).join(',');`,
    /SEEN\[DARK,REDUCED,WIDTH-300\]/,
    { read: 'html', setExtra: { viewport: { width: 300, height: 200 }, colorScheme: 'dark', reducedMotion: 'reduce' } },
  ),
  row(
    'document-level state (designMode, title, <base href>, globals)',
    `document.designMode = 'on'; document.title = 'LEAK-TITLE'; window.foo = 'leak';`,
    `return [document.designMode === 'on' ? 'DESIGN' : '', document.title === 'LEAK-TITLE' ? 'TITLE' : '', 'foo' in window ? 'GLOBAL' : '', document.baseURI.includes('leak-base') ? 'BASE' : ''].filter(Boolean).join(',');`,
    /SEEN\[DESIGN,TITLE,GLOBAL,BASE\]/,
    { head: '<base href="http://leak.invalid/leak-base/">', read: 'html' },
  ),
];

async function render(r: Render): Promise<Seen> {
  const endpoint = r.endpoint ?? 'pdf';
  const res = await service.post(`/api/${endpoint}`, r.body());
  if (res.status !== 200) throw new Error(`render failed: ${res.status} ${await res.text()}`);
  const bytes = await bytesOf(res);
  return endpoint === 'pdf' ? { text: (await parsePdf(bytes)).text } : { text: '', png: decodePng(bytes) };
}

// ---------------------------------------------------------------------------------------------------

describe('render isolation, row by row, on one reused warm page', () => {
  beforeAll(async () => {
    fx = await startFixtureServer();
    for (const [path, doc] of pages) fx.route(path, (_req, res) => send(res, doc.replaceAll('__FX__', fx.url)));
    const cors = { 'access-control-allow-origin': '*' };
    fx.route('/c/tick', (req, res) => {
      const k = new URL(req.url ?? '/', 'http://x').searchParams.get('k') ?? '';
      ticks.set(k, (ticks.get(k) ?? 0) + 1);
      send(res, 'ok', cors);
    });
    fx.route('/c/ticks', (req, res) =>
      send(res, String(ticks.get(new URL(req.url ?? '/', 'http://x').searchParams.get('k') ?? '') ?? 0), cors),
    );
    fx.route('/c/cacheable', (_req, res) =>
      send(res, `hit-${++cacheHits}`, { 'cache-control': 'public, max-age=3600' }),
    );
    fx.route('/c/sw.js', (_req, res) =>
      send(res, "self.addEventListener('fetch', (e) => e.respondWith(new Response('FROM-SW')));", {
        'content-type': 'text/javascript',
      }),
    );
    fx.route('/c/sw-target', (_req, res) => send(res, 'FROM-NETWORK'));
    fx.route('/c/shared.js', (_req, res) =>
      send(res, 'let n = 0; onconnect = (e) => { n++; e.ports[0].postMessage(n); };', {
        'content-type': 'text/javascript',
      }),
    );
    fx.route('/c/ping', (_req, res) => send(res, 'pong', cors));
    fx.route('/c/referer', (req, res) => send(res, req.headers.referer ? 'REF' : 'NOREF'));
    fx.route('/c/download', (_req, res) =>
      send(res, DOWNLOAD_MARKER, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="leak.bin"',
      }),
    );
    const secure = (req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      authSeen.push({ path, authorization: req.headers.authorization });
      const m = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
      if (m?.[1] && Buffer.from(m[1], 'base64').toString('utf8') === 'alice:S3cret')
        return send(res, path === '/secure/a' ? probeDoc('', PROBE_AUTH) : '<p>AUTH-OK</p>');
      send(res, '<p>AUTH-REQUIRED</p>', { 'www-authenticate': 'Basic realm="fixture"' }, 401);
    };
    for (const p of ['/secure/a', '/secure/b', '/secure/x', '/secure/inner']) fx.route(p, secure);
    service = await startTestService({
      render: { concurrency: 1, warmPages: 1, pageMaxUses: 100_000, restartAfter: 1_000_000 },
    });
  });

  afterAll(async () => {
    await service?.close();
    await fx?.close();
  });

  it.each(rows)('$name', async (r) => {
    await render({ body: () => ({ html: '<p>warm up</p>' }) }); // the warm page exists and is idle
    const created = service.browsers.stats().pagesCreated;
    r.before?.();
    if (r.control) r.control.sees(await render(r.control.render));
    const one = await render(r.set);
    await r.setSees(one);
    authSeenBefore = authSeen.length;
    await r.readSees(await render(r.read));
    // Render 2 ran on render 1's page (otherwise the row proves nothing about the wipe), or, for state no
    // wipe clears, on the page that replaced it.
    expect(service.browsers.stats().pagesCreated).toBe(created + (r.replaced ? 1 : 0));
  });

  it('a url, baseUrl or cookie url with credentials is refused before anything renders', async () => {
    const host = new URL(fx.url).host;
    const requestsBefore = fx.requests.length;
    for (const body of [
      { url: `http://alice:S3cret@${host}/secure/a` },
      { html: '<p>x</p>', baseUrl: `http://alice:S3cret@${host}/` },
      { url: `${fx.url}/c/ping`, cookies: [{ name: 'a', value: 'b', url: `http://alice:S3cret@${host}/` }] },
    ]) {
      const res = await service.post('/api/pdf', body);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('may not hold a user name or password');
    }
    expect(fx.requests.length).toBe(requestsBefore); // nothing reached the fixture
  });

  // HSTS, NEL and the client-certificate choice need an https origin Chromium trusts, which the service's
  // fixtures (plain http on IP addresses) cannot be: test/integration/context-state.test.ts drives real
  // Chromium with a test certificate it trusts, through WarmPage and WarmPool.
});
