// A fixture site with a login, for saved-login tests: /login is a form; POST /session (counted) checks the
// password, opens a session and sets its cookie (HttpOnly), 303 to /account; /account shows "Signed in as
// ann" only with a live session's cookie (else 302 to /login) and keeps a token in localStorage, set once
// per browser state and shown on the page; /probe reports what storage a page of the origin sees, by a
// request to /beacon (recorded with its Cookie header) before it shows #sent; /bloat fills localStorage.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FixtureServer, RecordedRequest } from './fixture-server.js';

export const LOGIN_USER = 'ann';

export interface LoginSite {
  password: string;
  /** Session ids the server has handed out (their cookie values). */
  readonly issued: string[];
  /** How many times the form was posted (the steps signed in). */
  loginPosts(): number;
  /** Every session ends: cookies the browser keeps no longer sign in. */
  endSessions(): void;
  /** The /beacon requests from `since` (an index into the fixture's requests): what /probe saw. */
  beacons(since: number): { localStorage: string; cookieHeader: string | undefined }[];
}

const page = (res: ServerResponse, body: string) =>
  void res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><html><body>${body}</body></html>`);

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => resolve(new URLSearchParams(body)));
  });
}

const sessionOf = (req: IncomingMessage) => /(?:^|; )sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];

export const loginSteps = (password: string) => [
  { action: 'fill', selector: '#user', value: LOGIN_USER },
  { action: 'fill', selector: '#password', value: password, secret: true },
  { action: 'click', selector: '#submit' },
];

export function addLoginSite(site: FixtureServer): LoginSite {
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const live = new Set<string>();
  const issued: string[] = [];
  let posts = 0;
  site.route('/login', (_req, res) =>
    page(
      res,
      `<form method="post" action="/session"><input id="user" name="user"> <input id="password" name="password"
      type="password"> <button id="submit">Sign in</button></form><p>Please sign in</p>`,
    ),
  );
  site.route('/session', async (req, res) => {
    posts++;
    const form = await readForm(req);
    if (form.get('user') !== LOGIN_USER || form.get('password') !== password) {
      res.writeHead(303, { location: '/login?failed' }).end();
      return;
    }
    const sid = `sid-${randomBytes(12).toString('hex')}`;
    live.add(sid);
    issued.push(sid);
    res.writeHead(303, { location: '/account', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` }).end();
  });
  site.route('/account', (req, res) => {
    const sid = sessionOf(req);
    if (!sid || !live.has(sid)) {
      res.writeHead(302, { location: '/login' }).end();
      return;
    }
    page(
      res,
      `<p id="who">Signed in as ${LOGIN_USER}</p><p id="token"></p>
      <script>
        if (!localStorage.getItem('token')) localStorage.setItem('token', 'tok-' + Math.random().toString(36).slice(2));
        document.getElementById('token').textContent = 'Token ' + localStorage.getItem('token');
      </script>`,
    );
  });
  site.route('/probe', (_req, res) =>
    page(
      res,
      `<p>Probe</p><script>
        fetch('/beacon?ls=' + encodeURIComponent(localStorage.getItem('token') ?? 'none'))
          .then(() => document.body.insertAdjacentHTML('beforeend', '<p id="sent">sent</p>'));
      </script>`,
    ),
  );
  site.route('/beacon', (_req, res) => void res.writeHead(204).end());
  // Stores `?kib=` KiB of localStorage (a site that caches in it): over the saved-login cap.
  site.route('/bloat', (req, res) => {
    const kib = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('kib') ?? '300');
    page(res, `<p>Bloated</p><script>localStorage.setItem('cache', 'x'.repeat(${kib} * 1024));</script>`);
  });
  const beaconOf = (r: RecordedRequest) => ({
    localStorage: new URL(r.path, 'http://x').searchParams.get('ls') ?? '',
    cookieHeader: r.headers.cookie,
  });
  return {
    password,
    issued,
    loginPosts: () => posts,
    endSessions: () => live.clear(),
    beacons: (since) =>
      site.requests
        .slice(since)
        .filter((r) => r.path.startsWith('/beacon'))
        .map(beaconOf),
  };
}
