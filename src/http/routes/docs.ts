// GET /docs and GET /openapi.json — being written.
import Router from '@koa/router';

export interface DocsDeps {
  /** The configured values the docs state (limits, timeouts, retry schedule...). */
  config: Readonly<import('../../config.js').Config>;
}

export function docsRoutes(_deps: DocsDeps): Router {
  return new Router();
}
