// Every router of the service matches paths exactly: @koa/router by default ignores letter case and a
// trailing slash, while the auth middleware decides by the exact path. `/API/jobs` or `/metrics/` would
// then reach a handler without passing the key check; matched exactly, they are 404.
import Router from '@koa/router';

export function exactRouter(): Router {
  return new Router({ sensitive: true, strict: true });
}
