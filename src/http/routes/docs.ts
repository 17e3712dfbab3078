// GET /docs (the human documentation, stating this service's configured limits), the reference files it
// links (GET /docs/<name>.md and the images they show) and GET /openapi.json (generated from the request
// and response schemas, with the same limits). All are built or read once, when the routes are made.
import type Router from '@koa/router';
import { notFound } from '../../errors.js';
import { exactRouter } from '../router.js';
import { docPagePath, IMAGE_TYPE, MARKDOWN_TYPE, readDocsFiles } from '../../web/docs-files.js';
import { docsPage, PAGE_SOURCE } from '../../web/docs-page.js';
import { PAGE_CSP } from '../../web/routes.js';
import { buildOpenApi } from '../openapi/document.js';
import { baseUrlOf } from '../principal.js';

export interface DocsDeps {
  /** The configured values the docs state (limits, timeouts, retry schedule...). */
  config: Readonly<import('../../config.js').Config>;
}

export function docsRoutes({ config }: DocsDeps): Router {
  // Once per service: the configuration does not change while it runs, nor do the files.
  const openapi = JSON.stringify(buildOpenApi(config));
  const files = readDocsFiles();
  const pages = new Map(files.pages.map((p) => [p.name, p]));
  const links = files.pages.map((p) => ({ path: docPagePath(p), title: p.title }));
  // A deployment without docs/ still starts (see readDocsFiles); only its /docs is missing.
  const page = pages.has(PAGE_SOURCE) ? docsPage(config, files.pages, links) : undefined;
  const router = exactRouter();

  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = openapi;
  });

  router.get('/docs', (ctx) => {
    if (!page) throw notFound(`no docs/${PAGE_SOURCE} in this installation`);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('Cache-Control', 'no-cache');
    // Examples name the address the reader reached us at (or publicUrl); every value is escaped.
    ctx.body = page(baseUrlOf(ctx, config.publicUrl));
  });

  router.get('/docs/:file', (ctx) => {
    const page = pages.get(ctx.params.file!);
    if (!page) throw notFound(`no document ${ctx.params.file}`);
    ctx.set('X-Content-Type-Options', 'nosniff'); // shown as text, never sniffed into HTML
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = MARKDOWN_TYPE;
    ctx.body = page.body;
  });

  router.get('/docs/images/:file', (ctx) => {
    const image = files.images.get(ctx.params.file!);
    if (!image) throw notFound(`no image ${ctx.params.file}`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = IMAGE_TYPE;
    ctx.body = image;
  });

  return router;
}
