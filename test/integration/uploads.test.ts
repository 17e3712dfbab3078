// Uploads (multipart/form-data): index.html and its assets, rendered through the real HTTP stack and
// Chromium, proven by the PDF's text and fonts and by the PNG's pixels; the limits at their edges; names
// refused; a body cut off; and the upload's origin, which no later render can reach.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { parsePdf } from '../helpers/pdf.js';
import { pdffonts, pdftotext } from '../helpers/poppler.js';
import { decodePng } from '../helpers/png.js';
import { until } from '../helpers/until.js';
import { fileParts, multipartBody, MULTIPART_TYPE, solidPng, uploadForm, type Part } from '../helpers/upload.js';

// A face no page gets unless the upload's font loads: the fallback (monospace) is DejaVu Sans Mono.
const FONT = readFileSync('/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf');

const LIMITS = {
  uploadMaxBytes: 400_000,
  anonymousUploadMaxBytes: 300_000,
  uploadMaxFiles: 6,
  anonymousUploadMaxFiles: 4,
  uploadMaxFileBytes: 200_000,
};

let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService({ limits: LIMITS });
  key = svc.createKey('uploads').key;
});
afterAll(async () => {
  await svc?.close();
});

const doc = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

function send(path: string, body: FormData | Buffer, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: Buffer.isBuffer(body) ? { 'content-type': MULTIPART_TYPE, ...headers } : headers,
    body: Buffer.isBuffer(body) ? new Uint8Array(body) : body,
  });
}
const keyed = { authorization: '' };
beforeAll(() => {
  keyed.authorization = `Bearer ${key}`;
});

async function ok(res: Response): Promise<Buffer> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return bytesOf(res);
}

const SITE = {
  'index.html': doc(
    '<h1 class="title">UPLOADED PAGE</h1><p id="out"></p><img src="img/logo.png" width="100" height="100"><p class="face">FACE TEXT</p><script src="js/app.js"></script>',
    '<link rel="stylesheet" href="css/site.css">',
  ),
  'css/site.css':
    "@font-face { font-family: UpFace; src: url('../fonts/up.ttf'); } body { margin: 0; background: rgb(0, 128, 255); } .face { font-family: UpFace, monospace; } img { display: block; }",
  'js/app.js': "document.getElementById('out').textContent = 'WRITTEN BY SCRIPT';",
  'img/logo.png': solidPng(100, 100, [255, 0, 0]),
  'fonts/up.ttf': FONT,
};

describe('rendering an upload', () => {
  it('PDF: text of index.html and of an uploaded script, a font from the upload (FormData)', async () => {
    const bytes = await ok(await send('/api/pdf', uploadForm(SITE, { format: 'A5' }), keyed));
    const pdf = await parsePdf(bytes);
    expect(pdf.text).toContain('UPLOADED PAGE');
    expect(pdf.text).toContain('WRITTEN BY SCRIPT');
    expect(pdf.text).toContain('FACE TEXT');
    expect(Math.round(pdf.pages[0]!.widthPt)).toBe(420); // A5: the options part applied
    expect((await pdffonts(bytes)).map((f) => f.name)).toContain('LiberationSansNarrow-Bold');
  });

  it('PNG: the uploaded image and the uploaded CSS colour, from a raw body as curl -F sends it', async () => {
    const parts: Part[] = [
      { name: 'viewport', body: '{"width": 300, "height": 200}' }, // form fields: values parsed as JSON where they parse
      { name: 'format', body: 'png' },
      ...fileParts(SITE),
    ];
    const png = decodePng(await ok(await send('/api/image', multipartBody(parts), keyed)));
    expect(png.width).toBe(300);
    expect(png.pixel(50, 150)).toMatchObject({ r: 255, g: 0, b: 0 }); // img/logo.png, below the heading
    expect(png.pixel(250, 150)).toMatchObject({ r: 0, g: 128, b: 255 }); // css/site.css background
  });

  it('an unknown path is a 404 from the upload, not a request anywhere', async () => {
    const form = uploadForm({
      'index.html': doc(
        "<p id=s>PENDING</p><script>fetch('missing/x.css').then(r => { document.getElementById('s').textContent = 'STATUS ' + r.status + ' ' + r.headers.get('content-type'); })</script>",
      ),
    });
    form.append('waitForFunction', "document.getElementById('s').textContent !== 'PENDING'");
    const pdf = await parsePdf(await ok(await send('/api/pdf', form)));
    expect(pdf.text).toContain('STATUS 404 text/plain');
  });

  it('the options as form fields go through the same schema: a bad one is a 400 naming it', async () => {
    const form = uploadForm({ 'index.html': doc('x') });
    form.append('scale', '7');
    const res = await send('/api/pdf', form);
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    expect(err.details?.map((d) => d.path)).toEqual(['scale']);
  });

  it.each(['html', 'url', 'baseUrl'])('%s in the options is a 400 naming it', async (name) => {
    const res = await send('/api/pdf', uploadForm({ 'index.html': doc('x') }, { [name]: 'https://example.com/' }));
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.details?.[0]?.path).toBe(name);
  });

  it('an option given in the options part and as a field is a 400', async () => {
    const form = uploadForm({ 'index.html': doc('x') }, { scale: 1 });
    form.append('scale', '1');
    const res = await send('/api/pdf', form);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details?.[0]?.path).toBe('scale');
  });

  it('a missing index.html is a 400 naming it', async () => {
    const res = await send('/api/pdf', uploadForm({ 'home.html': doc('x') }));
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.details?.[0]?.path).toBe('index.html');
    expect(err.message).toContain('index.html');
  });

  it('Markdown files without index.html make the default page, in the order sent', async () => {
    const form = uploadForm({
      'intro.md': '# Intro MD\n\nFirst *file*.',
      'notes/more.md': '| K | V |\n|---|---|\n| a | 1 |',
    });
    const text = await pdftotext(await ok(await send('/api/pdf', form)));
    expect(text).toMatch(/Intro MD[\s\S]*First file\.[\s\S]*K\s+V[\s\S]*a\s+1/);
    const pdf = await parsePdf(await ok(await send('/api/pdf', uploadForm({ 'intro.md': '# Intro MD' }))));
    expect(pdf.info.title).toBe('Intro MD'); // the default page's <title>: its first heading
  });

  it('index.html takes each Markdown file at its {{ toHTML "name.md" }} marker, beside its other assets', async () => {
    const form = uploadForm({
      'index.html': doc(
        '<header>LETTERHEAD</header>{{ toHTML "body.md" }}<footer>{{toHTML "sign.md"}}</footer>',
        '<link rel="stylesheet" href="css/a.css">',
      ),
      'body.md': '## Dear reader\n\nThe *body* text.',
      'sign.md': 'Signed, **ACME**',
      'css/a.css': 'h2 { text-transform: uppercase }',
    });
    const text = await pdftotext(await ok(await send('/api/pdf', form)));
    expect(text).toMatch(/LETTERHEAD[\s\S]*DEAR READER[\s\S]*The body text\.[\s\S]*Signed, ACME/);
    expect(text).not.toContain('toHTML');
  });

  it('an index.html without a marker is the page as it is: its .md files are plain files', async () => {
    const form = uploadForm({ 'index.html': doc('<p>PLAIN PAGE</p>'), 'notes.md': '# NOT RENDERED' });
    const text = await pdftotext(await ok(await send('/api/pdf', form)));
    expect(text).toContain('PLAIN PAGE');
    expect(text).not.toContain('NOT RENDERED');
  });

  it('a marker naming no uploaded Markdown file is a 400 on index.html naming it', async () => {
    const form = uploadForm({ 'index.html': doc('{{ toHTML "missing.md" }}'), 'notes.md': '# x' });
    const res = await send('/api/pdf', form);
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.details?.[0]?.path).toBe('index.html');
    expect(err.message).toContain('missing.md');
  });

  it('"./" and "." segments are normalised', async () => {
    const files = {
      './index.html': doc('<link rel="stylesheet" href="css/a.css"><p>N</p>'),
      'css/./a.css': 'body { background: rgb(0, 255, 0) }',
    };
    const parts = [{ name: 'viewport', body: '{"width": 100, "height": 100}' }, ...fileParts(files)];
    const png = decodePng(await ok(await send('/api/image', multipartBody(parts))));
    expect(png.pixel(90, 90)).toMatchObject({ r: 0, g: 255, b: 0 });
  });

  it.each([
    ['../secret.css', 'leads out'],
    ['css/../../x.css', 'leads out'],
    ['/etc/passwd', 'absolute'],
    ['C:/x.css', 'absolute'],
    ['css\\site.css', 'backslash'],
    ['css//site.css', 'empty folder'],
    ['css/', 'empty folder'],
    ['a\u0000b.css', 'NUL'],
    ['a%2e.css', '%'],
  ])('the file name %j is a 400 (%s)', async (name, why) => {
    const parts = fileParts({ 'index.html': doc('x') });
    parts.push({ name: 'files', filename: name, body: 'x' });
    const res = await send('/api/pdf', multipartBody(parts));
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain(why);
    expect(err.details?.[0]?.path).toBe(name);
  });

  it('a file sent twice (also after normalising) is a 400', async () => {
    const parts = fileParts({ 'index.html': doc('x'), 'a.css': 'x' });
    parts.push({ name: 'files', filename: './a.css', body: 'y' });
    const res = await send('/api/pdf', multipartBody(parts));
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details?.[0]).toMatchObject({ path: 'a.css', message: 'sent twice' });
  });
});

describe('limits, at the edge and just over', () => {
  /** A body of exactly `total` bytes: index.html and three fillers sharing the rest (each under the file limit). */
  const sized = (total: number) => {
    const parts = fileParts({ 'index.html': doc('EDGE'), 'a.bin': '', 'b.bin': '', 'c.bin': '' });
    const room = total - multipartBody(parts).length;
    for (let i = 1; i <= 3; i++) parts[i]!.body = Buffer.alloc(Math.floor(room / 3) + (i === 3 ? room % 3 : 0));
    const body = multipartBody(parts);
    expect(body.length).toBe(total);
    return body;
  };

  it('total bytes with a key: uploadMaxBytes passes, one more is 413', async () => {
    expect((await send('/api/pdf', sized(LIMITS.uploadMaxBytes), keyed)).status).toBe(200);
    const res = await send('/api/pdf', sized(LIMITS.uploadMaxBytes + 1), keyed);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe('payload_too_large');
  });

  it('total bytes without a key: the anonymous limit passes, one more is 413 naming the key limit', async () => {
    expect((await send('/api/pdf', sized(LIMITS.anonymousUploadMaxBytes))).status).toBe(200);
    const res = await send('/api/pdf', sized(LIMITS.anonymousUploadMaxBytes + 1));
    expect(res.status).toBe(413);
    expect((await errorOf(res)).message).toMatch(/API key, which raises the limit to 39\d(\.\d)? KiB/);
  });

  it('a chunked body (no Content-Length) is counted as it arrives', async () => {
    const body = sized(LIMITS.uploadMaxBytes + 1);
    const res = await fetch(`${svc.url}/api/pdf`, {
      method: 'POST',
      headers: { 'content-type': MULTIPART_TYPE, ...keyed },
      body: new Blob([new Uint8Array(body)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('per-file bytes: uploadMaxFileBytes passes, one more is 413 naming the file', async () => {
    const parts = (n: number) => fileParts({ 'index.html': doc('EDGE'), 'big.bin': Buffer.alloc(n) });
    expect((await send('/api/pdf', multipartBody(parts(LIMITS.uploadMaxFileBytes)), keyed)).status).toBe(200);
    const res = await send('/api/pdf', multipartBody(parts(LIMITS.uploadMaxFileBytes + 1)), keyed);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).details?.[0]?.path).toBe('big.bin');
  });

  it('file count with a key and without: the limit passes, one more is 413', async () => {
    const files = (n: number) =>
      multipartBody(
        fileParts({
          'index.html': doc('COUNT'),
          ...Object.fromEntries(Array.from({ length: n - 1 }, (_, i) => [`f${i}.txt`, 'x'])),
        }),
      );
    expect((await send('/api/pdf', files(LIMITS.uploadMaxFiles), keyed)).status).toBe(200);
    const over = await send('/api/pdf', files(LIMITS.uploadMaxFiles + 1), keyed);
    expect(over.status).toBe(413);
    expect((await errorOf(over)).details?.[0]?.path).toBe('files');
    expect((await send('/api/pdf', files(LIMITS.anonymousUploadMaxFiles))).status).toBe(200);
    const anon = await send('/api/pdf', files(LIMITS.anonymousUploadMaxFiles + 1));
    expect(anon.status).toBe(413);
    expect((await errorOf(anon)).message).toContain(`API key, which raises the limit to ${LIMITS.uploadMaxFiles}`);
  });
});

describe('a body cut off', () => {
  it('mid-part (the HTTP body complete, the multipart one not) is a 400, and no job is made', async () => {
    const whole = multipartBody(fileParts({ 'index.html': doc('CUT'), 'a.css': 'body { color: red }' }));
    const cut = whole.subarray(0, whole.length - 40); // inside a.css's part, before the closing boundary
    const form = await send('/api/pdf', cut);
    expect(form.status).toBe(400);
    expect((await errorOf(form)).message).toContain('cut off');
    const asyncCut = multipartBody([{ name: 'async', body: 'true' }, ...fileParts({ 'index.html': doc('CUT') })]);
    const res = await send('/api/pdf', asyncCut.subarray(0, asyncCut.length - 30), keyed);
    expect(res.status).toBe(400);
    const jobs = (await (await svc.call('GET', '/api/jobs', key)).json()) as { items: unknown[] };
    expect(jobs.items).toEqual([]);
  });

  it('a client that goes away mid-body leaves no request behind: its connection is closed, the next one renders', async () => {
    const before = await connections();
    const body = multipartBody(fileParts({ 'index.html': doc('GONE'), 'big.bin': Buffer.alloc(100_000) }));
    const url = new URL(svc.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /api/pdf HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${MULTIPART_TYPE}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, 50_000));
    await until('the server has the connection', async () => (await connections()) > before);
    socket.destroy();
    // Bound: the server's side of the connection is gone within until's default wait (30 s).
    await until('the server closed the connection', async () => (await connections()) === before);
    expect((await send('/api/pdf', uploadForm({ 'index.html': doc('NEXT') }))).status).toBe(200);
  });
});

describe('isolation', () => {
  it("a later render cannot reach an earlier render's upload origin", async () => {
    const first = await parsePdf(
      await ok(
        await send(
          '/api/pdf',
          uploadForm({
            'index.html': doc(
              '<p id=o></p><script>document.getElementById("o").textContent = "ORIGIN " + location.origin;</script>',
            ),
            'logo.png': solidPng(100, 100, [255, 0, 0]),
          }),
        ),
      ),
    );
    const origin = /ORIGIN (http:\/\/[a-f0-9]+\.upload\.invalid)/.exec(first.text)?.[1];
    expect(origin).toBeDefined();
    // The same warm page or another, an upload of its own or plain HTML: nothing answers for that origin.
    const probe = (prefix: string) =>
      `<img src="${origin}/logo.png" width="100" height="100" style="display:block"><p id=r>${prefix} PENDING</p>` +
      `<script>fetch("${origin}/logo.png").then(r => "STATUS " + r.status, () => "FAILED").then(t => { document.getElementById("r").textContent = "${prefix} " + t; })</script>`;
    const wait = "!document.getElementById('r').textContent.includes('PENDING')";
    for (const render of [
      () =>
        send(
          '/api/image',
          uploadForm(
            { 'index.html': doc(probe('UPLOAD')) },
            { viewport: { width: 200, height: 200 }, waitForFunction: wait },
          ),
        ),
      () =>
        svc.post('/api/image', {
          html: doc(probe('HTML')),
          viewport: { width: 200, height: 200 },
          waitForFunction: wait,
        }),
    ]) {
      const png = decodePng(await ok(await render()));
      expect(png.pixel(50, 50)).not.toMatchObject({ r: 255, g: 0, b: 0 });
    }
    const text = await parsePdf(
      await ok(await send('/api/pdf', uploadForm({ 'index.html': doc(probe('PDF')) }, { waitForFunction: wait }))),
    );
    expect(text.text).toContain('PDF FAILED');
  });
});

async function connections(): Promise<number> {
  return new Promise((resolve, reject) => svc.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}
