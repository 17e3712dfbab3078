import Router from '@koa/router';
import type { Context } from 'koa';
import type { RenderOutput, Renderer } from '../../render/renderer.js';
import type { Principal } from '../middleware/auth.js';
import { readRenderBody } from '../middleware/body.js';
import { imageRequestSchema, pdfRequestSchema, type PageRequest, type SchemaLimits } from '../schemas/render.js';
import { parseBody } from '../validate.js';

export interface RenderRouteDeps { renderer: Renderer; limits: SchemaLimits & { maxBodyBytes: number; anonymousMaxBodyBytes: number } }

export function renderRoutes({ renderer, limits }: RenderRouteDeps): Router {
  const pdfSchema = pdfRequestSchema(limits);
  const imageSchema = imageRequestSchema(limits);
  const router = new Router();

  // Anonymous callers (the public converter tier) get the smaller body limit.
  const bodyLimit = (ctx: Context) => ((ctx.state.principal as Principal | undefined)?.kind === 'key'
    ? limits.maxBodyBytes : Math.min(limits.maxBodyBytes, limits.anonymousMaxBodyBytes));

  router.post('/api/pdf', async (ctx) => {
    const req = parseBody(pdfSchema, await readRenderBody(ctx, bodyLimit(ctx)));
    send(ctx, req, await renderer.renderPdf(req, clientGone(ctx)), 'render.pdf');
  });

  router.post('/api/image', async (ctx) => {
    const req = parseBody(imageSchema, await readRenderBody(ctx, bodyLimit(ctx)));
    const ext = req.format === 'jpeg' ? 'jpg' : req.format;
    send(ctx, req, await renderer.renderImage(req, clientGone(ctx)), `screenshot.${ext}`);
  });

  return router;
}

/** Aborts when the client disconnects before the response is written: its render is cancelled. */
function clientGone(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => { if (!ctx.res.writableFinished) controller.abort(); });
  return controller.signal;
}

function send(ctx: Context, req: PageRequest, out: RenderOutput, defaultName: string): void {
  const filename = safeFilename(req.filename, defaultName);
  if (out.blockedRequests > 0) ctx.state.blockedRequests = out.blockedRequests; // for the request log
  ctx.set('X-Render-Ms', String(out.renderMs));
  if (out.finalUrl) ctx.set('X-Final-Url', out.finalUrl);
  if (out.pageCount !== undefined) ctx.set('X-Page-Count', String(out.pageCount));
  if (out.truncated) ctx.set('X-Truncated', 'full-page');
  if (req.response === 'json') {
    ctx.body = {
      contentType: out.contentType,
      bytes: out.bytes.length,
      data: out.bytes.toString('base64'),
      meta: { filename, renderMs: out.renderMs, finalUrl: out.finalUrl, pageCount: out.pageCount, truncated: out.truncated },
    };
    return;
  }
  ctx.set('Content-Disposition', contentDisposition(filename));
  ctx.type = out.contentType;
  ctx.body = out.bytes;
}

/** A name safe in a header and on any file system; the right extension is added when missing. */
export function safeFilename(requested: string | undefined, fallback: string): string {
  const ext = fallback.slice(fallback.lastIndexOf('.'));
  // eslint-disable-next-line no-control-regex
  const base = (requested ?? '').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f"]/g, '').trim();
  if (!base || base === '.' || base === '..') return fallback;
  const accepted = ext === '.jpg' ? ['.jpg', '.jpeg'] : [ext];
  return accepted.some((e) => base.toLowerCase().endsWith(e)) ? base : `${base}${ext}`;
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_');
  return ascii === filename
    ? `inline; filename="${filename}"`
    : `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
