import type Router from '@koa/router';
import { exactRouter } from '../router.js';
import type { Context } from 'koa';
import { anonymousBodyLimit, anonymousUploadLimits } from '../../config.js';
import type { RenderJobKind } from '../../jobs/render-job.js';
import { invalidRequest } from '../../errors.js';
import type { JobService } from '../../jobs/service.js';
import { jobView } from '../../jobs/view.js';
import type { RenderOutput, Renderer } from '../../render/renderer.js';
import type { Principal } from '../middleware/auth.js';
import { readRenderInput } from '../middleware/body.js';
import type { Upload, UploadLimit } from '../middleware/multipart.js';
import { AnonymousTier, type AnonymousLimits } from '../anonymous-tier.js';
import { imageRequestSchema, pdfRequestSchema, type PageRequest } from '../schemas/render.js';
import type { RenderJson } from '../schemas/responses/jobs.js';
import type { SchemaLimits } from '../schemas/request-options.js';
import { baseUrlOf, keyIdOf } from '../principal.js';
import { parseBody } from '../validate.js';
import { withMarkdownAsHtml } from '../markdown-request.js';
import { contentDisposition, safeFilename } from '../filename.js';
import { diagnosticsCounts, type RenderDiagnostics } from '../../domain/render-diagnostics.js';
import type { PdfFinishing } from '../../domain/pdf-spec.js';
import type { PdfEngine } from '../../pdf/engine.js';
import { runPdfWork, type PdfWork, type PdfWorkResult } from '../../jobs/pdf-work.js';
import { finishingOf, splitFinishing } from '../schemas/pdf-finishing.js';

export interface RenderRouteDeps {
  renderer: Renderer;
  /** Finishes a render's PDF when the request asks for it (pdfa, encrypt, split, ...). */
  pdfEngine: PdfEngine;
  jobs: JobService;
  limits: SchemaLimits &
    AnonymousLimits & {
      maxBodyBytes: number;
      anonymousMaxBodyBytes: number;
      uploadMaxBytes: number;
      anonymousUploadMaxBytes: number;
      uploadMaxFiles: number;
      anonymousUploadMaxFiles: number;
      uploadMaxFileBytes: number;
    };
  /** Base of absolute URLs in jobs; empty = the origin the request came to. */
  publicUrl: string;
}

export function renderRoutes({ renderer, pdfEngine, jobs, limits, publicUrl }: RenderRouteDeps): Router {
  const pdfSchema = pdfRequestSchema(limits);
  const imageSchema = imageRequestSchema(limits);
  const router = exactRouter();
  const anonymousTier = new AnonymousTier(limits);

  // Anonymous callers (the public converter tier) get the smaller body limit; its refusal names the key's.
  const bodyLimit = (ctx: Context) =>
    (ctx.state.principal as Principal | undefined)?.kind === 'key'
      ? { maxBytes: limits.maxBodyBytes }
      : { maxBytes: anonymousBodyLimit(limits), keyMaxBytes: limits.maxBodyBytes };

  // Uploads likewise: the anonymous tier's total and file count are smaller, a file's own limit the same.
  const uploadLimit = (ctx: Context): UploadLimit => {
    const keyed = (ctx.state.principal as Principal | undefined)?.kind === 'key';
    const anonymous = anonymousUploadLimits(limits);
    const body = bodyLimit(ctx);
    return keyed
      ? {
          maxBytes: limits.uploadMaxBytes,
          maxFiles: limits.uploadMaxFiles,
          maxFileBytes: limits.uploadMaxFileBytes,
          maxFieldBytes: body.maxBytes,
        }
      : {
          maxBytes: anonymous.maxBytes,
          keyMaxBytes: limits.uploadMaxBytes,
          maxFiles: anonymous.maxFiles,
          keyMaxFiles: limits.uploadMaxFiles,
          maxFileBytes: limits.uploadMaxFileBytes,
          maxFieldBytes: body.maxBytes,
        };
  };
  const read = (ctx: Context) => readRenderInput(ctx, bodyLimit(ctx), uploadLimit(ctx));

  /** `"async": true`: 202 with a new job (200 with the earlier one for a repeated Idempotency-Key). */
  async function submit(ctx: Context, kind: RenderJobKind, req: PageRequest, pdf?: PdfWork): Promise<void> {
    const keyId = keyIdOf(ctx, 'async jobs need an API key');
    const { job, created } = await jobs.submit({
      keyId,
      kind,
      request: req,
      ...(pdf && { pdf }),
      idempotencyKey: idempotencyKeyOf(ctx),
      baseUrl: baseUrlOf(ctx, publicUrl),
    });
    ctx.status = created ? 202 : 200;
    ctx.set('Location', `/api/jobs/${job.id}`);
    ctx.body = jobView(job);
  }

  router.post('/api/pdf', async (ctx) => {
    const { body: raw, upload } = await read(ctx);
    const parsed = withUpload(await withMarkdownAsHtml(parseBody(pdfSchema, raw)), upload);
    // The renderer sees only its PdfSpec; the finishing (if any) goes to the engine after the render.
    const { render: req, finishing: wire } = splitFinishing(parsed);
    const finishing = wire && finishingOf(wire, upload?.files);
    if (finishing?.pdfua) Object.assign(req, { tagged: true, outline: true });
    if (req.async) return submit(ctx, 'pdf', req, finishing && { finishing });
    const signal = clientGone(ctx);
    const finish = finishing && ((out: RenderOutput) => finished(pdfEngine, out, finishing, signal));
    const name = finishing?.split ? 'render.zip' : 'render.pdf';
    const ip = anonymousIp(ctx);
    if (ip === undefined) {
      const out = await renderer.renderPdf(req, signal);
      return send(ctx, req, finish ? await finish(out) : out, name);
    }
    const limited = anonymousTier.limitTimeout(raw, req);
    const out = await anonymousTier.inSlot(ip, () => renderer.renderPdf(anonymousTier.boundedPdf(limited), signal));
    anonymousTier.checkPdf(out);
    send(ctx, limited, finish ? await finish(out) : out, name);
  });

  router.post('/api/image', async (ctx) => {
    const { body: raw, upload } = await read(ctx);
    const req = withUpload(await withMarkdownAsHtml(parseBody(imageSchema, raw)), upload);
    if (req.async) return submit(ctx, 'image', req);
    const ext = req.format === 'jpeg' ? 'jpg' : req.format;
    const ip = anonymousIp(ctx);
    if (ip === undefined) return send(ctx, req, await renderer.renderImage(req, clientGone(ctx)), `screenshot.${ext}`);
    const limited = anonymousTier.limitTimeout(raw, req);
    send(
      ctx,
      limited,
      await anonymousTier.inSlot(ip, () => renderer.renderImage(limited, clientGone(ctx))),
      `screenshot.${ext}`,
    );
  });

  return router;
}

/** The validated request with the upload's files (the schema saw only the options and index.html). */
function withUpload<T extends PageRequest>(req: T, upload: Upload | undefined): T {
  return upload ? { ...req, files: upload.files } : req;
}

/** The client address of a request without a key (the anonymous tier's limits apply), else undefined. */
function anonymousIp(ctx: Context): string | undefined {
  const principal = ctx.state.principal as Principal | undefined;
  return principal?.kind === 'anonymous' ? principal.ip : undefined;
}

/**
 * The Idempotency-Key header (async requests only: a synchronous render is simply done again).
 * Printable ASCII up to 255 characters, like the IETF draft and Stripe.
 */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const value = ctx.get('Idempotency-Key');
  if (!value) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw invalidRequest('Idempotency-Key must be 1 to 255 printable ASCII characters without spaces', [
      { path: 'Idempotency-Key', message: 'invalid header value' },
    ]);
  }
  return value;
}

/** Aborts when the client disconnects before the response is written: its render is cancelled. */
export function clientGone(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** A render's output finished by the engine: its bytes, type and page count are the finished document's. */
async function finished(
  engine: PdfEngine,
  out: RenderOutput,
  finishing: PdfFinishing,
  signal: AbortSignal,
): Promise<RenderOutput & { parts?: PdfWorkResult['parts'] }> {
  return { ...out, ...(await runPdfWork(engine, { finishing }, out.bytes, signal)) };
}

function send(
  ctx: Context,
  req: { filename?: string; response?: 'binary' | 'json' },
  out: RenderOutput & { parts?: PdfWorkResult['parts'] },
  defaultName: string,
): void {
  const filename = safeFilename(req.filename, defaultName);
  if (out.parts) ctx.set('X-Part-Count', String(out.parts.length));
  if (out.blockedRequests > 0) ctx.state.blockedRequests = out.blockedRequests; // for the request log
  ctx.set('X-Render-Ms', String(out.renderMs));
  if (out.finalUrl) ctx.set('X-Final-Url', out.finalUrl);
  if (out.pageCount !== undefined) ctx.set('X-Page-Count', String(out.pageCount));
  if (out.truncation) ctx.set('X-Truncated', out.truncation);
  if (out.diagnostics) setDiagnosticsHeaders(ctx, out.diagnostics);
  if (req.response === 'json') {
    ctx.body = {
      contentType: out.contentType,
      bytes: out.bytes.length,
      data: out.bytes.toString('base64'),
      meta: {
        filename,
        renderMs: out.renderMs,
        finalUrl: out.finalUrl,
        pageCount: out.pageCount,
        truncated: out.truncated,
      },
      ...(out.diagnostics && { diagnostics: out.diagnostics }),
    } satisfies RenderJson;
    return;
  }
  ctx.set('Content-Disposition', contentDisposition(filename));
  ctx.type = out.contentType;
  ctx.body = out.bytes;
}

/** The counts of what the render saw, for answers that carry only the bytes (the JSON answer has the lists). */
function setDiagnosticsHeaders(ctx: Context, diagnostics: RenderDiagnostics): void {
  const counts = diagnosticsCounts(diagnostics);
  ctx.set('X-Render-Failed-Resources', String(counts.failedResources));
  ctx.set('X-Render-Console-Errors', String(counts.consoleErrors));
  ctx.set('X-Render-Exceptions', String(counts.exceptions));
  ctx.set('X-Render-Missing-Glyphs', String(counts.missingGlyphs));
}
