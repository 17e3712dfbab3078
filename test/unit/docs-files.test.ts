// The reference files of docs/ are reachable from a browser: /docs links every one of them, each link
// answers the file as Markdown text, and the links inside the files (to each other, to their images)
// resolve over HTTP just as they do in the repository. The routes alone, over real HTTP: no browser needed.
import Koa from 'koa';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { docsRoutes } from '../../src/http/routes/docs.js';
import { DOCS_DIR, readDocsFiles } from '../../src/web/docs-files.js';

const FILES = readdirSync(DOCS_DIR)
  .filter((f) => f.endsWith('.md'))
  .sort();

let server: Server;
let base: string;

beforeAll(async () => {
  const app = new Koa();
  app.use(docsRoutes({ config: loadConfig({ env: {} }) }).routes());
  const handle = app.callback();
  server = createServer((req, res) => void handle(req, res)); // Koa answers errors itself
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((closed) => server?.close(closed));
});

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** The relative links of a Markdown file outside its code, resolved against the URL it is served at. */
function relativeLinks(md: string, at: string): URL[] {
  const prose = md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((l) => !/^[a-z]+:/.test(l) && !l.startsWith('#'))
    .map((l) => new URL(l, at));
}

describe('/docs and the files of docs/', () => {
  it('the /docs page links every file of docs/, by its title', async () => {
    expect(FILES.length).toBeGreaterThan(5);
    const page = await (await fetch(`${base}/docs`)).text();
    const links = [...page.matchAll(/<a href="(\/docs\/[^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]]);
    expect(links.map(([href]) => href)).toEqual(FILES.map((f) => `/docs/${f}`));
    for (const file of FILES) {
      const title = /^# (.+)$/m.exec(readFileSync(join(DOCS_DIR, file), 'utf8'))![1]!;
      expect(links, file).toContainEqual([`/docs/${file}`, escapeHtml(title.replace(/`/g, ''))]);
    }
  });

  it.each(FILES)('serves %s as it is, as Markdown text', async (file) => {
    const res = await fetch(`${base}/docs/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(DOCS_DIR, file)))).toBe(true);
  });

  it.each(FILES)('the links inside %s resolve over HTTP (other files, images)', async (file) => {
    const at = `${base}/docs/${file}`;
    const targets = relativeLinks(readFileSync(join(DOCS_DIR, file), 'utf8'), at);
    for (const url of targets.filter((u) => u.pathname.startsWith('/docs/'))) {
      const res = await fetch(url);
      expect(res.status, `${file} → ${url.pathname}`).toBe(200);
      const onDisk = readFileSync(join(DOCS_DIR, url.pathname.slice('/docs/'.length)));
      expect(Buffer.from(await res.arrayBuffer()).equals(onDisk), url.pathname).toBe(true);
      if (url.pathname.endsWith('.png')) expect(res.headers.get('content-type')).toBe('image/png');
    }
  });

  it('answers 404 for anything that is not a file of docs/ or docs/images/', async () => {
    for (const path of [
      '/docs/nope.md',
      '/docs/README.md',
      '/docs/..%2FREADME.md',
      '/docs/%2E%2E%2Fpackage.json',
      '/docs/images/nope.png',
      '/docs/images/..%2F..%2Fpackage.json',
      '/docs/images/monitors.md',
      '/docs/monitors.md/',
      '/docs/MONITORS.md',
    ]) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    }
  });
});

describe('readDocsFiles', () => {
  it('takes flat .md and images/*.png names only, in name order, titled by their first heading', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-docs-'));
    try {
      mkdirSync(join(dir, 'images'));
      mkdirSync(join(dir, 'nested.md')); // a folder, whatever its name, is not a page
      writeFileSync(join(dir, 'b-topic.md'), 'intro\n\n# The `b` topic\n\n# Second heading\n');
      writeFileSync(join(dir, 'a.md'), 'no heading');
      for (const other of ['Upper.md', 'notes.txt', '.hidden.md', 'x.md.bak']) writeFileSync(join(dir, other), '# x');
      writeFileSync(join(dir, 'images', 'shot.png'), 'png');
      writeFileSync(join(dir, 'images', 'shot.svg'), '<svg/>');
      const files = readDocsFiles(dir);
      expect(files.pages.map((p) => [p.name, p.title])).toEqual([
        ['a.md', 'a.md'],
        ['b-topic.md', 'The b topic'],
      ]);
      expect([...files.images.keys()]).toEqual(['shot.png']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a deployment without docs/ has no files to serve, and still starts', () => {
    expect(readDocsFiles(join(tmpdir(), 'pagewatch-no-such-docs'))).toEqual({ pages: [], images: new Map() });
  });
});
