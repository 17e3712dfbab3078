// The web pages and their assets, served by the service itself: no CDN, no external fonts, so they
// work offline. Pages are plain HTML + ES modules that call the same public API as any client.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { notFound } from '../errors.js';
import { projectRoot } from '../project-root.js';
import { SITE_HEADER_MARKER, siteHeader } from './site-header.js';
import { VENDOR_FOLDER, vendoredModules } from './vendor.js';

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

/** Only names with a known type, not starting with a dot: nothing outside the static folder can be asked for. */
const ASSET = /^[a-z0-9][a-z0-9._-]*\.(css|js|svg)$/;
/** One level of folders (a dashboard component each); `..` and hidden folders cannot match. */
const FOLDER = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Same-origin everything; blob: for results shown in the page (an image, a PDF in a frame). No inline
 * script, so an injected string in a page cannot run.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' blob: data:",
  "frame-src 'self' blob:",
  "object-src 'self' blob:",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** A file as served: its bytes, type and a validator, so a revalidating browser gets a 304. */
interface Served {
  body: Buffer;
  type: string;
  etag: string;
}

function served(body: Buffer, type: string): Served {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/**
 * The pages (with the site header filled in) and the assets are read once, when the routes are made:
 * a request costs no disk read, and the ETag lets a browser revalidate without downloading again.
 * The HTTP layer hands in the router (its exact-matching one), so the pages depend on no part of it.
 */
export function webRoutes(router: Router): Router {
  const assets = new Map<string, Served>();
  const add = (name: string, body: Buffer): void => void assets.set(name, served(body, TYPES[extname(name)]!));
  for (const entry of readdirSync(STATIC_DIR)) {
    if (ASSET.test(entry)) add(entry, readFileSync(join(STATIC_DIR, entry)));
    else if (FOLDER.test(entry) && entry !== VENDOR_FOLDER && statSync(join(STATIC_DIR, entry)).isDirectory())
      for (const file of readdirSync(join(STATIC_DIR, entry)).filter((f) => ASSET.test(f)))
        add(`${entry}/${file}`, readFileSync(join(STATIC_DIR, entry, file)));
  }
  for (const [name, text] of vendoredModules()) add(name, Buffer.from(text));
  for (const [path, file] of Object.entries(PAGES)) {
    const page = served(
      Buffer.from(readFileSync(join(STATIC_DIR, file), 'utf8').replace(SITE_HEADER_MARKER, siteHeader(path))),
      TYPES['.html']!,
    );
    router.get(path, (ctx) => {
      ctx.set('Content-Security-Policy', PAGE_CSP);
      send(ctx, page);
    });
  }
  const sendAsset = (ctx: Context, name: string): void => {
    // Only names read at startup are served: a path the walk above did not produce is never looked up on disk.
    const asset = assets.get(name);
    if (!asset) throw notFound(`no asset ${name}`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    send(ctx, asset);
  };
  router.get('/assets/:file', (ctx) => sendAsset(ctx, ctx.params.file!));
  router.get('/assets/:folder/:file', (ctx) => sendAsset(ctx, `${ctx.params.folder}/${ctx.params.file}`));
  return router;
}

function send(ctx: Context, file: Served): void {
  ctx.set('Cache-Control', 'no-cache'); // revalidated each time: a new version shows at once
  ctx.set('ETag', file.etag);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.type;
  ctx.body = file.body;
}
