// The web pages and their assets, served by the service itself: no CDN, no external fonts, so they
// work offline. Pages are plain HTML + ES modules that call the same public API as any client.
import type Router from '@koa/router';
import { exactRouter } from '../http/router.js';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { notFound } from '../errors.js';
import { projectRoot } from '../project-root.js';
import { SITE_HEADER_MARKER, siteHeader } from './site-header.js';

const STATIC_DIR = join(projectRoot(), 'src/web/static');

/** Page paths → their file. */
const PAGES: Record<string, string> = {
  '/': 'index.html',
  '/monitors': 'monitors.html',
  '/status': 'status.html',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Only flat names with a known type: nothing outside the static folder can be asked for. */
const ASSET = /^[a-z0-9][a-z0-9._-]*\.(css|js|svg)$/;

/**
 * Same-origin everything; blob: for results shown in the page (an image, a PDF in a frame). No inline
 * script, so an injected string in a page cannot run.
 */
export const PAGE_CSP = [
  "default-src 'self'", "img-src 'self' blob: data:", "frame-src 'self' blob:", "object-src 'self' blob:",
  "style-src 'self'", "script-src 'self'", "connect-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'self'",
].join('; ');

export function webRoutes(): Router {
  const router = exactRouter();
  for (const [path, file] of Object.entries(PAGES)) {
    router.get(path, async (ctx) => {
      ctx.body = (await staticFile(file)).toString('utf8').replace(SITE_HEADER_MARKER, siteHeader(path));
      ctx.type = TYPES['.html']!;
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.set('Cache-Control', 'no-cache');
    });
  }
  router.get('/assets/:file', async (ctx) => {
    const file = ctx.params.file!;
    if (!ASSET.test(file)) throw notFound(`no asset ${file}`);
    ctx.body = await staticFile(file);
    ctx.type = TYPES[extname(file)]!;
    ctx.set('Cache-Control', 'no-cache'); // revalidated each time: a new version shows at once
    ctx.set('X-Content-Type-Options', 'nosniff');
  });
  return router;
}

async function staticFile(file: string): Promise<Buffer> {
  try {
    return await readFile(join(STATIC_DIR, file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`no file ${file}`);
    throw err;
  }
}
