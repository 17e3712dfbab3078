// The `markdown` field of POST /api/pdf and /api/image: the default page (headings, lists, tables, code in the
// PDF's text; a PNG that decodes), the caller's html as a template with {{ toHTML }} markers, the 400s of the
// source rules, and raw HTML in Markdown under the same script and egress rules as any HTML.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng, isPng } from '../helpers/png.js';
import { MARKDOWN_IN_PLACE_CHARS } from '../../src/render/markdown/markdown-in-thread.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let site: FixtureServer; // allowed, as localhost:PORT
let canary: FixtureServer; // refused, as 127.0.0.1:PORT (loopback, not allowed by name or address)
let siteUrl: string;
let canaryUrl: string;

beforeAll(async () => {
  [site, canary] = await Promise.all([startFixtureServer(), startFixtureServer()]);
  siteUrl = `http://localhost:${site.port}`;
  canaryUrl = `http://127.0.0.1:${canary.port}`;
  for (const server of [site, canary])
    server.route('/pixel', (_req, res) => {
      res.writeHead(404).end();
    });
  svc = await startTestService({ egress: { allowPrivate: false, allowHosts: ['localhost'], denyHosts: [] } });
});
afterEach(() => {
  site.requests.length = 0;
  canary.requests.length = 0;
});
afterAll(async () => {
  await Promise.all([svc?.close(), site?.close(), canary?.close()]);
});

const squash = (text: string) => text.replace(/\s+/g, ' ');

async function pdfOf(body: Record<string, unknown>) {
  const res = await svc.post('/api/pdf', body);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return parsePdf(await bytesOf(res));
}

const SAMPLE = [
  '# Quarterly Report',
  '',
  'Intro paragraph with *emphasis* and `inline code`.',
  '',
  '## Items',
  '',
  '- first item',
  '- second item',
  '',
  '| Product | Price |',
  '|---------|------:|',
  '| Widget  | 12.50 |',
  '| Gadget  | 99.00 |',
  '',
  '```js',
  'const total = 111.5;',
  '```',
].join('\n');

describe('the default page', () => {
  it('PDF: headings, list, table and code in the text; the first heading is the title', async () => {
    const pdf = await pdfOf({ markdown: SAMPLE });
    const text = squash(pdf.text);
    for (const part of ['Quarterly Report', 'Items', 'first item', 'second item', 'const total = 111.5;'])
      expect(text).toContain(part);
    expect(text).toMatch(/Product\s+Price\s+Widget\s+12\.50\s+Gadget\s+99\.00/);
    expect(text).not.toContain('|'); // the table was made a table, not left as pipes
    expect(text).not.toContain('#');
    expect(pdf.info.title).toBe('Quarterly Report');
  });

  it('image: a PNG of the page, dark text on white, the h1 rule drawn', async () => {
    const res = await svc.post('/api/image', { markdown: SAMPLE, viewport: { width: 800, height: 600 } });
    expect(res.status).toBe(200);
    const bytes = await bytesOf(res);
    expect(isPng(bytes)).toBe(true);
    const png = decodePng(bytes);
    expect([png.width, png.height]).toEqual([800, 600]);
    expect(png.pixel(5, 5)).toMatchObject({ r: 255, g: 255, b: 255 });
    let dark = 0;
    for (let y = 0; y < 200; y++)
      for (let x = 0; x < 800; x++) {
        const p = png.pixel(x, y);
        if (p.r < 80 && p.g < 80 && p.b < 80) dark++;
      }
    expect(dark, 'pixels of the heading text').toBeGreaterThan(200);
  });

  it('lang comes from locale, and a script in the Markdown runs with javaScriptEnabled', async () => {
    const markdown =
      'Before\n\n<p id="out">not run</p>\n<script>document.getElementById("out").textContent = "LANG=" + document.documentElement.lang</script>\n';
    expect(squash((await pdfOf({ markdown, locale: 'de-DE' })).text)).toContain('LANG=de-DE');
    const off = squash((await pdfOf({ markdown, locale: 'de-DE', javaScriptEnabled: false })).text);
    expect(off).toContain('not run');
    expect(off).not.toContain('LANG=');
  });

  it(`Markdown over ${MARKDOWN_IN_PLACE_CHARS} characters is converted (in a thread) all the same`, async () => {
    const paragraph = 'Filler paragraph text for a long document.\n\n';
    const markdown = `# Long\n\n${paragraph.repeat(Math.ceil(MARKDOWN_IN_PLACE_CHARS / paragraph.length) + 10)}LAST-LINE-MARK\n`;
    expect(markdown.length).toBeGreaterThan(MARKDOWN_IN_PLACE_CHARS);
    const pdf = await pdfOf({ markdown });
    expect(pdf.pages[0]!.text).toContain('Long');
    expect(pdf.pages.at(-1)!.text).toContain('LAST-LINE-MARK');
  });
});

describe('html as the template', () => {
  const template = (marker: string) =>
    `<!doctype html><html><head><meta charset="utf-8"></head><body><p>HEAD-OF-TEMPLATE</p>${marker}<p>FOOT-OF-TEMPLATE</p></body></html>`;

  it.each(['{{ toHTML }}', '{{ toHTML "markdown" }}', '{{toHTML}}'])(
    '%s is replaced by the Markdown',
    async (marker) => {
      const text = squash(
        (await pdfOf({ markdown: '## Inside heading\n\n- inside item', html: template(marker) })).text,
      );
      expect(text).toMatch(/HEAD-OF-TEMPLATE Inside heading inside item FOOT-OF-TEMPLATE/);
      expect(text).not.toContain('toHTML');
    },
  );

  it('every marker is replaced; replacement patterns and markers in the Markdown stay text', async () => {
    const markdown = 'DOLLARS $& $1 $$ $` and a marker {{ toHTML }} in the text';
    const text = squash((await pdfOf({ markdown, html: template('{{ toHTML }}<hr>{{ toHTML "markdown" }}') })).text);
    const inserted = 'DOLLARS $& $1 $$ $` and a marker {{ toHTML }} in the text';
    expect(text.split(inserted).length - 1, text).toBe(2); // once per marker, never recursively
    expect(text).not.toContain('HEAD-OF-TEMPLATE HEAD-OF-TEMPLATE');
  });
});

describe('async jobs', () => {
  it('a job of Markdown stores the HTML it became and renders it', async () => {
    const key = svc.createKey('markdown');
    const res = await svc.call('POST', '/api/pdf', key.key, { async: true, markdown: '# Job Heading\n\n- job item' });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const stored = svc.db.prepare('SELECT request FROM jobs WHERE id = ?').get(id) as { request: string };
    const request = JSON.parse(stored.request) as Record<string, unknown>;
    expect(request.markdown).toBeUndefined();
    expect(String(request.html)).toContain('<h1>Job Heading</h1>');
    await until(
      `job ${id} to succeed`,
      async () => {
        const job = (await (await svc.call('GET', `/api/jobs/${id}`, key.key)).json()) as { status: string };
        if (job.status === 'failed') throw new Error('the job failed');
        return job.status === 'succeeded' || undefined;
      },
      60_000,
    );
    const result = await svc.call('GET', `/api/jobs/${id}/result`, key.key);
    expect(result.status).toBe(200);
    expect(squash((await parsePdf(await bytesOf(result))).text)).toMatch(/Job Heading job item/);
  });
});

describe('refusals', () => {
  async function expect400(body: Record<string, unknown>, path: string, words: RegExp) {
    const res = await svc.post('/api/pdf', body);
    const err = await errorOf(res);
    expect(`${res.status} ${err.code}`, err.message).toBe('400 invalid_request');
    const detail = err.details?.find((d) => d.path === path);
    expect(detail, JSON.stringify(err.details)).toBeDefined();
    expect(detail!.message).toMatch(words);
  }

  it('html without a marker: 400 saying where to put it', async () => {
    await expect400({ markdown: '# x', html: '<p>no marker</p>' }, 'html', /put \{\{ toHTML \}\}/);
  });

  it('a marker naming another source: 400 naming it', async () => {
    await expect400({ markdown: '# x', html: '{{ toHTML "other.md" }}' }, 'html', /"other\.md"/);
  });

  it('markdown with url: 400', async () => {
    await expect400({ markdown: '# x', url: `${siteUrl}/invoice` }, 'markdown', /not both/);
  });

  it('none of url, html and markdown: 400', async () => {
    await expect400({}, 'url', /exactly one of url, html or markdown/);
  });

  it('image requests follow the same rules', async () => {
    const res = await svc.post('/api/image', { markdown: '# x', html: '<p>no marker</p>' });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details?.[0]?.path).toBe('html');
  });
});

describe('raw HTML in Markdown meets the egress policy like any HTML', () => {
  it('an <img> to a refused address makes no request; one to an allowed site does', async () => {
    const markdown = `# Images\n\n<img src="${siteUrl}/pixel?allowed"> <img src="${canaryUrl}/pixel?refused">\n`;
    const res = await svc.post('/api/pdf', { markdown });
    expect(res.status).toBe(200);
    // The render waited for both images to load or fail before printing, so both requests were made by now.
    expect(site.requests.map((r) => r.path)).toContain('/pixel?allowed');
    expect(canary.requests).toEqual([]);
  });
});
