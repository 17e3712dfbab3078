// For the monitor-secrets tests: secrets that cannot occur by chance, a fixture page behind Basic auth
// that lets the test see what a capture really sent, and "run now and wait for the capture".
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import type { CaptureView, MonitorView } from '../../src/monitors/view.js';
import type { FixtureServer, RecordedRequest } from './fixture-server.js';
import { until } from './until.js';

export const MASK = '••••';
export const YEARLY = '0 0 1 1 *';

export interface Secrets {
  header: string;
  cookie: string;
  password: string;
}

export const newSecrets = (): Secrets => ({
  header: `hdr-${randomBytes(12).toString('hex')}`,
  cookie: `ck-${randomBytes(12).toString('hex')}`,
  password: `pw-${randomBytes(12).toString('hex')}`,
});

/** Capture options holding `s`: a header, a cookie (by domain + path) and Basic credentials. */
export const secretCapture = (s: Secrets) => ({
  viewport: { width: 320, height: 200 },
  headers: { 'X-Api-Token': s.header },
  cookies: [{ name: 'session', value: s.cookie, domain: '127.0.0.1', path: '/' }],
  httpCredentials: { username: 'watcher', password: s.password },
});

/** How those options must look in every answer. */
export const MASKED_CAPTURE = {
  headers: { 'X-Api-Token': MASK },
  cookies: [{ name: 'session', value: MASK, domain: '127.0.0.1', path: '/' }],
  httpCredentials: { username: 'watcher', password: MASK },
};

/** /private answers 401 with a Basic challenge until credentials come (as a real site would). */
export function addPrivatePage(fx: FixtureServer): void {
  fx.route('/private', (req, res) => {
    if (!req.headers.authorization) {
      res
        .writeHead(401, { 'WWW-Authenticate': 'Basic realm="private"', 'Content-Type': 'text/plain' })
        .end('who are you?');
      return;
    }
    res
      .writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' })
      .end('<body style="background:#4a4">private</body>');
  });
}

/** What the page last received with credentials: the header, the cookie and the Basic password. */
export function lastSeen(fx: FixtureServer): { header?: string; cookie?: string; password?: string } {
  const req = fx.requests.filter((r) => r.path === '/private' && r.headers.authorization).at(-1) as RecordedRequest;
  const basic = Buffer.from(String(req.headers.authorization).replace(/^Basic /, ''), 'base64').toString('utf8');
  return {
    header: req.headers['x-api-token'] as string | undefined,
    cookie: /(?:^|; )session=([^;]*)/.exec(req.headers.cookie ?? '')?.[1],
    password: basic.startsWith('watcher:') ? basic.slice('watcher:'.length) : undefined,
  };
}

type Call = (method: string, path: string, key: string, body?: unknown) => Promise<Response>;

/** POST …/run, then the capture it made (captures are listed once they are done). */
export async function runAndWait(call: Call, key: IssuedKey, monitorId: string): Promise<CaptureView> {
  const list = async () =>
    ((await (await call('GET', `/api/monitors/${monitorId}/captures`, key.key)).json()) as { items: CaptureView[] })
      .items;
  const before = (await list()).length;
  const run = await call('POST', `/api/monitors/${monitorId}/run`, key.key);
  if (run.status !== 202) throw new Error(`run: ${run.status} ${await run.text()}`);
  // A capture renders a small local page; 60 s is generous for a loaded 2-core machine.
  return until(
    'the capture',
    async () => {
      const items = await list();
      return items.length > before ? items[0] : undefined;
    },
    60_000,
    100,
  );
}

export async function monitorOf(res: Response, status = 200): Promise<MonitorView> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  return JSON.parse(text) as MonitorView;
}

/** The bytes of the SQLite database and of its WAL (if there is one), as they are on disk now. */
export function databaseBytes(dataDir: string): Buffer {
  const files = ['pagewatch.db', 'pagewatch.db-wal'].map((f) => join(dataDir, f)).filter((f) => existsSync(f));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

/** The three secret values of `s`. */
export const secretValues = (s: Secrets): string[] => [s.header, s.cookie, s.password];

export function holdsAny(bytes: Buffer, s: Secrets): string[] {
  return secretValues(s).filter((value) => bytes.includes(Buffer.from(value, 'utf8')));
}
