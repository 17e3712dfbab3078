// GET /docs (the human documentation, stating this service's configured limits) and GET /openapi.json
// (generated from the request schemas with the same limits). Both are built from the configuration.
import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import { renderDocsPage } from '../../web/docs-page.js';
import { PAGE_CSP } from '../../web/routes.js';
import { buildOpenApi } from '../openapi.js';
import { baseUrlOf } from '../principal.js';

export interface DocsDeps {
  /** The configured values the docs state (limits, timeouts, retry schedule...). */
  config: Readonly<import('../../config.js').Config>;
}

export function docsRoutes({ config }: DocsDeps): Router {
  // Once per service: the configuration does not change while it runs.
  const openapi = JSON.stringify(buildOpenApi(config));
  const router = exactRouter();

  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = openapi;
  });

  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('Cache-Control', 'no-cache');
    // Examples name the address the reader reached us at (or publicUrl); every value is escaped.
    ctx.body = renderDocsPage(config, baseUrlOf(ctx, config.publicUrl));
  });

  return router;
}
