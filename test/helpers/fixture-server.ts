/**
 * Local HTTP fixture server for integration tests (node:http only).
 *
 * Listens on 127.0.0.1 with a random port. Every request is recorded in
 * `requests` (method, path incl. query, headers) before it is routed.
 * Custom routes added with `route()` match on the exact pathname (query
 * ignored) and take precedence over the built-in routes below.
 * All responses carry `Cache-Control: no-store` so browser caching never
 * hides a request from `requests`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

export interface RecordedRequest {
  method: string;
  /** Path including the query string, e.g. "/tall?height=300". */
  path: string;
  headers: http.IncomingHttpHeaders;
}

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export interface FixtureServer {
  /** Base URL without trailing slash, e.g. "http://127.0.0.1:41234". */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Add/replace a handler for an exact pathname (overrides built-ins). */
  route(path: string, handler: RouteHandler): void;
  close(): Promise<void>;
}

/** Credentials accepted by `/basic-auth`. */
export const BASIC_AUTH_USER = 'alice';
export const BASIC_AUTH_PASSWORD = 's3cret';

// ---------------------------------------------------------------------------
// helpers

function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function sendHtml(res: http.ServerResponse, html: string, status = 200): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html);
}

function sendPng(res: http.ServerResponse, png: Buffer): void {
  res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length });
  res.end(png);
}

/** Integer query parameter, or `fallback` if missing/invalid/negative. */
function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw.trim() === '') return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
}

function solidPng(width: number, height: number, r: number, g: number, b: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) {
    png.data[i] = r;
    png.data[i + 1] = g;
    png.data[i + 2] = b;
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** 10x10 solid blue (#0000ff), served at /img/dot.png. */
const DOT_PNG = solidPng(10, 10, 0, 0, 255);
/** 10x10 solid red (#ff0000), served at /img/lazy.png. */
const LAZY_PNG = solidPng(10, 10, 255, 0, 0);

// ---------------------------------------------------------------------------
// page templates

function invoiceHtml(): string {
  const items = [
    ['Consulting — architecture review', 12, 150],
    ['Frontend development (sprint 14)', 40, 95],
    ['Backend development (sprint 14)', 36, 105],
    ['Code review & QA', 10, 80],
    ['Infrastructure setup (staging)', 6, 120],
    ['Database migration support', 8, 110],
    ['Accessibility audit', 5, 130],
    ['Performance profiling', 7, 125],
    ['Documentation & handover', 4, 70],
    ['Project management', 9, 90],
    ['Security review (OWASP checklist)', 6, 140],
    ['CI pipeline maintenance', 3, 100],
    ['Incident support (on call)', 5, 115],
    ['Design system updates', 8, 85],
  ] as const;
  const rows = items
    .map(
      ([desc, qty, rate], i) => `
        <tr>
          <td>${i + 1}</td>
          <td>${desc}</td>
          <td class="num">${qty}</td>
          <td class="num">$${rate.toFixed(2)}</td>
          <td class="num">$${(qty * rate).toFixed(2)}</td>
        </tr>`,
    )
    .join('');
  const subtotal = items.reduce((sum, [, qty, rate]) => sum + qty * rate, 0);
  const tax = subtotal * 0.2;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Invoice 2024-0042</title>
  <style>
    body { font-family: Helvetica, Arial, sans-serif; color: #222; margin: 40px; font-size: 13px; }
    header { display: flex; justify-content: space-between; align-items: flex-start; margin-bottom: 32px; }
    h1 { font-size: 28px; margin: 0 0 4px; letter-spacing: 2px; }
    .muted { color: #777; }
    .addresses { display: flex; gap: 64px; margin-bottom: 24px; }
    table { width: 100%; border-collapse: collapse; }
    th, td { padding: 8px 10px; border-bottom: 1px solid #ddd; text-align: left; }
    th { background: #f4f4f4; font-weight: 600; }
    td.num, th.num { text-align: right; }
    tfoot td { border: none; font-weight: 600; }
    .total td { font-size: 16px; border-top: 2px solid #222; }
    footer { margin-top: 40px; font-size: 11px; }
  </style>
</head>
<body>
  <header>
    <div>
      <h1>INVOICE</h1>
      <div class="muted">No. 2024-0042 · INVOICE-TEST-MARKER</div>
    </div>
    <div class="muted">
      Issued: 2024-03-01<br>
      Due: 2024-03-31
    </div>
  </header>
  <section class="addresses">
    <div>
      <strong>From</strong><br>
      Example Studio Ltd.<br>
      12 Sample Street<br>
      Testville, TS 00001
    </div>
    <div>
      <strong>Bill to</strong><br>
      ACME Corporation<br>
      Accounts Payable<br>
      99 Fixture Avenue<br>
      Mocktown, MT 99999
    </div>
  </section>
  <table>
    <thead>
      <tr><th>#</th><th>Description</th><th class="num">Hours</th><th class="num">Rate</th><th class="num">Amount</th></tr>
    </thead>
    <tbody>${rows}
    </tbody>
    <tfoot>
      <tr><td colspan="4" class="num">Subtotal</td><td class="num">$${subtotal.toFixed(2)}</td></tr>
      <tr><td colspan="4" class="num">VAT (20%)</td><td class="num">$${tax.toFixed(2)}</td></tr>
      <tr class="total"><td colspan="4" class="num">Total due</td><td class="num">$${(subtotal + tax).toFixed(2)}</td></tr>
    </tfoot>
  </table>
  <footer class="muted">
    Payment by bank transfer to IBAN XX00 0000 0000 0000 0000 00 within 30 days.
    Please quote the invoice number with your payment. Thank you for your business!
  </footer>
</body>
</html>`;
}

function tallHtml(height: number): string {
  const red = Math.min(100, height);
  return `<!doctype html>
<html>
<head>
  <meta charset="utf-8">
  <title>Tall ${height}</title>
  <style>
    html, body { margin: 0; padding: 0; background: #ffffff; }
    #tall {
      box-sizing: border-box;
      height: ${height}px;
      border-top: ${red}px solid #ff0000;
      background: #ffffff;
    }
  </style>
</head>
<body><div id="tall"></div></body>
</html>`;
}

const COLOR_SCHEME_HTML = `<!doctype html>
<html>
<head>
  <meta charset="utf-8">
  <title>Color scheme</title>
  <style>
    html, body { margin: 0; padding: 0; width: 100%; min-height: 100vh; background: #ffffff; }
    @media (prefers-color-scheme: dark) {
      html, body { background: #000000; }
    }
  </style>
</head>
<body></body>
</html>`;

const MEDIA_HTML = `<!doctype html>
<html>
<head>
  <meta charset="utf-8">
  <title>Media</title>
  <style>
    html, body { margin: 0; padding: 0; min-height: 100vh; }
    @media print  { html, body { background: #00ff00; } }
    @media screen { html, body { background: #0000ff; } }
  </style>
</head>
<body><p>MEDIA-TEST</p></body>
</html>`;

function lateElementHtml(ms: number): string {
  return `<!doctype html>
<html>
<head><meta charset="utf-8"><title>Late element</title></head>
<body>
  <p>waiting ${ms} ms</p>
  <script>
    setTimeout(() => {
      const div = document.createElement('div');
      div.id = 'late';
      div.textContent = 'LATE';
      document.body.appendChild(div);
    }, ${ms});
  </script>
</body>
</html>`;
}

function headersHtml(title: string, headers: http.IncomingHttpHeaders): string {
  const lines = Object.entries(headers)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : (v ?? '')}`)
    .join('\n');
  return `<!doctype html>
<html>
<head><meta charset="utf-8"><title>${title}</title></head>
<body><pre id="headers">${escapeHtml(lines)}</pre></body>
</html>`;
}

function simpleHtml(title: string, body: string): string {
  return `<!doctype html>
<html>
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>${body}</body>
</html>`;
}

// ---------------------------------------------------------------------------
// server

/** `host`: another loopback address (127.0.0.2...) serves as a second, third-party origin. */
export async function startFixtureServer({
  host = '127.0.0.1',
  port = 0,
}: {
  host?: string;
  /** 0: any free port; a fixed one where a stored URL names it (an upgrade fixture's monitors). */
  port?: number;
} = {}): Promise<FixtureServer> {
  const requests: RecordedRequest[] = [];
  const custom = new Map<string, RouteHandler>();
  const timers = new Set<NodeJS.Timeout>();

  function later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const pathname = url.pathname;

    const customHandler = custom.get(pathname);
    if (customHandler) {
      await customHandler(req, res);
      return;
    }

    switch (pathname) {
      // Invoice-like page (~5 KB, inline CSS, a table); contains "INVOICE-TEST-MARKER".
      // <title> is "Invoice 2024-0042".
      case '/invoice':
        return sendHtml(res, invoiceHtml());

      // ?height=N (default 5000): body is one div N px tall, html/body margin 0;
      // top 100px red (#ff0000), the rest white.
      case '/tall':
        return sendHtml(res, tallHtml(intParam(url, 'height', 5000)));

      // Body white (#ffffff) by default, black (#000000) under prefers-color-scheme: dark.
      case '/color-scheme':
        return sendHtml(res, COLOR_SCHEME_HTML);

      // Background #00ff00 under @media print, #0000ff under @media screen; text "MEDIA-TEST".
      case '/media':
        return sendHtml(res, MEDIA_HTML);

      // ?ms=N (default 500): adds <div id="late">LATE</div> after N ms via setTimeout.
      case '/late-element':
        return sendHtml(res, lateElementHtml(intParam(url, 'ms', 500)));

      // Shows the request headers as "name: value" lines in <pre id="headers">.
      case '/echo-headers':
        return sendHtml(res, headersHtml('Echo headers', req.headers));

      // Basic auth alice / s3cret: "AUTH-OK" (200) if correct, else 401 with
      // WWW-Authenticate: Basic realm="fixture".
      case '/basic-auth': {
        const auth = req.headers.authorization ?? '';
        const m = /^Basic\s+(.+)$/i.exec(auth);
        const decoded = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : '';
        if (decoded === `${BASIC_AUTH_USER}:${BASIC_AUTH_PASSWORD}`) {
          return sendHtml(res, simpleHtml('Auth', '<p>AUTH-OK</p>'));
        }
        res.writeHead(401, {
          'Content-Type': 'text/html; charset=utf-8',
          'WWW-Authenticate': 'Basic realm="fixture"',
        });
        res.end(simpleHtml('Unauthorized', '<p>AUTH-REQUIRED</p>'));
        return;
      }

      // Page with <img id="dot" src="/img/dot.png"> (10x10 solid blue PNG).
      case '/with-image':
        return sendHtml(
          res,
          simpleHtml(
            'With image',
            '<p>IMAGE-PAGE</p><img id="dot" src="/img/dot.png" width="10" height="10" alt="dot">',
          ),
        );
      case '/img/dot.png':
        return sendPng(res, DOT_PNG);

      // 4000px-tall page with <img loading="lazy" src="/img/lazy.png"> at the very bottom,
      // so /img/lazy.png is only requested if the page is scrolled (10x10 solid red PNG).
      case '/lazy':
        return sendHtml(
          res,
          `<!doctype html>
<html>
<head>
  <meta charset="utf-8">
  <title>Lazy</title>
  <style>html, body { margin: 0; padding: 0; }</style>
</head>
<body>
  <div style="height: 4000px">LAZY-TOP</div>
  <img id="lazy" loading="lazy" src="/img/lazy.png" width="10" height="10" alt="lazy">
</body>
</html>`,
        );
      case '/img/lazy.png':
        return sendPng(res, LAZY_PNG);

      // ?ms=N (default 1000): waits N ms, then answers "SLOW-OK".
      case '/slow':
        later(intParam(url, 'ms', 1000), () => {
          if (!res.destroyed && !res.writableEnded) sendHtml(res, simpleHtml('Slow', '<p>SLOW-OK</p>'));
        });
        return;

      // Echoes the Cookie header in <pre id="cookies"> (empty if none).
      case '/cookies':
        return sendHtml(res, simpleHtml('Cookies', `<pre id="cookies">${escapeHtml(req.headers.cookie ?? '')}</pre>`));

      // Page whose script never returns (hangs the renderer's main thread).
      case '/infinite-loop':
        return sendHtml(res, simpleHtml('Infinite loop', '<p>LOOP</p><script>for(;;){}</script>'));
    }

    // /status/NNN (200..599): HTML "STATUS NNN" with that status code.
    const statusMatch = /^\/status\/(\d{3})$/.exec(pathname);
    if (statusMatch?.[1]) {
      const code = Number(statusMatch[1]);
      if (code >= 200 && code <= 599) {
        return sendHtml(res, simpleHtml(`Status ${code}`, `<p>STATUS ${code}</p>`), code);
      }
    }

    // Anything else: 404.
    sendHtml(res, simpleHtml('Not found', `<p>NOT FOUND ${escapeHtml(pathname)}</p>`), 404);
  }

  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: { ...req.headers } });
    res.setHeader('Cache-Control', 'no-store');
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        sendHtml(res, simpleHtml('Error', `<pre>${escapeHtml(String(err))}</pre>`), 500);
      } else {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    requests,
    route(path: string, handler: RouteHandler): void {
      custom.set(path, handler);
    },
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve, reject) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
