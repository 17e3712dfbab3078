// Every API request a trace of its own (or the caller's, continued from a valid `traceparent`): the server
// span the render, job submission or monitor change under it hangs from. Off, it only calls on. Probes
// (/health, /ready, /metrics) are not traced: an orchestrator's polling would drown the traces that matter.
import type { Middleware } from 'koa';
import { inRootSpan, SpanKind, SpanStatusCode, tracingOn } from '../../tracing/spans.js';

const PROBES = new Set(['/health', '/ready', '/metrics']);

export function traceRequests(): Middleware {
  return (ctx, next) => {
    if (!tracingOn() || PROBES.has(ctx.path)) return next();
    const attributes = {
      'http.request.method': ctx.method,
      'url.scheme': ctx.protocol,
      'pagewatch.request.id': ctx.state.requestId as string,
    };
    // The span is named by the route's template once routing matched one; never by the path (its ids and tokens).
    return inRootSpan(ctx.method, { kind: SpanKind.SERVER, continues: ctx.headers, attributes }, async (span) => {
      await next();
      const route: unknown = ctx._matchedRoute;
      if (typeof route === 'string') {
        span.setAttribute('http.route', route);
        span.updateName(`${ctx.method} ${route}`);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      const code = errorCodeOf(ctx.body);
      if (code) span.setAttribute('error.type', code);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: code ?? String(ctx.status) });
    });
  };
}

/** The contract's error code of an error answer (errors.ts middleware wrote it). */
function errorCodeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const error: unknown = body.error;
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}
