// POST /api/pdf/<tool>: the PDF tools on uploaded PDFs (docs/pdf.md). The PDFs come as JSON (`files`, base64)
// or as the parts of a multipart upload (the options as one `options` part or fields, as a render upload);
// an async request becomes a `pdf` job whose inputs are kept like an upload's files.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { UploadedFile } from '../../domain/render-spec.js';
import { invalidRequest } from '../../errors.js';
import type { PdfEngine, PdfInput } from '../../pdf/engine.js';
import { PDF_TOOLS, pdfWorkFormat, runPdfWork, type PdfTool, type PdfWork } from '../../jobs/pdf-work.js';
import type { JobService } from '../../jobs/service.js';
import { jobView } from '../../jobs/view.js';
import { readJsonBody } from '../middleware/body.js';
import { readUpload, type UploadLimit } from '../middleware/multipart.js';
import { baseUrlOf, keyIdOf } from '../principal.js';
import { exactRouter } from '../router.js';
import { finishingOf, MAX_EMBEDS, type FinishingWire } from '../schemas/pdf-finishing.js';
import { PDF_TOOL_RULES, pdfToolSchema, type PdfToolLimits, type PdfToolRequest } from '../schemas/pdf-tools.js';
import { parseBody } from '../validate.js';
import { contentDisposition, safeFilename } from '../filename.js';
import { clientGone, idempotencyKeyOf } from './render.js';

export interface PdfToolRouteDeps {
  pdfEngine: PdfEngine;
  jobs: JobService;
  limits: PdfToolLimits & { maxBodyBytes: number; uploadMaxBytes: number; uploadMaxFileBytes: number };
  publicUrl: string;
}

export function pdfToolRoutes({ pdfEngine, jobs, limits, publicUrl }: PdfToolRouteDeps): Router {
  const router = exactRouter();
  // The tools need an API key (they are not in the anonymous tier): the key's limits apply.
  const uploadLimit: UploadLimit = {
    maxBytes: limits.uploadMaxBytes,
    // The PDFs, and the files the options may name (attachments, the invoice, two images).
    maxFiles: limits.pdfMaxFiles + MAX_EMBEDS + 3,
    maxFileBytes: limits.uploadMaxFileBytes,
    maxFieldBytes: limits.maxBodyBytes,
  };

  for (const tool of PDF_TOOLS) {
    const schema = pdfToolSchema(tool, limits);
    router.post(`/api/pdf/${tool}`, async (ctx) => {
      const keyId = keyIdOf(ctx, 'the PDF tools need an API key');
      const work = await readWork(ctx, tool, schema, uploadLimit, limits.pdfMaxFiles);
      const { req } = work;
      const format = pdfWorkFormat(work);
      const name = safeFilename(req.filename, `${tool}.${format}`);
      if (req.async) {
        const { job, created } = await jobs.submit({
          keyId,
          kind: 'pdf',
          request: {
            ...(req.filename && { filename: req.filename }),
            ...(req.webhookUrl && { webhookUrl: req.webhookUrl }),
          },
          pdf: { tool, finishing: work.finishing, inputs: work.inputs },
          idempotencyKey: idempotencyKeyOf(ctx),
          baseUrl: baseUrlOf(ctx, publicUrl),
        });
        ctx.status = created ? 202 : 200;
        ctx.set('Location', `/api/jobs/${job.id}`);
        ctx.body = jobView(job);
        return;
      }
      const started = performance.now();
      const out = await runPdfWork(pdfEngine, work, undefined, clientGone(ctx));
      ctx.set('X-Render-Ms', String(Math.round(performance.now() - started)));
      if (out.pageCount !== undefined) ctx.set('X-Page-Count', String(out.pageCount));
      if (out.parts) ctx.set('X-Part-Count', String(out.parts.length));
      if (out.contentType === 'application/json') {
        ctx.body = JSON.parse(out.bytes.toString('utf-8')) as unknown;
        return;
      }
      ctx.set('Content-Disposition', contentDisposition(name));
      ctx.type = out.contentType;
      ctx.body = out.bytes;
    });
  }
  return router;
}

type ToolWork = Required<Pick<PdfWork, 'inputs' | 'tool'>> & PdfWork & { req: PdfToolRequest };

/** The validated request, its input PDFs and its finishing, from JSON or a multipart upload. */
async function readWork(
  ctx: Context,
  tool: PdfTool,
  schema: ReturnType<typeof pdfToolSchema>,
  uploadLimit: UploadLimit,
  pdfMaxFiles: number,
): Promise<ToolWork> {
  const multipart = ctx.request.type.trim().toLowerCase() === 'multipart/form-data';
  let req: PdfToolRequest;
  let inputs: PdfInput[];
  let parts: UploadedFile[] | undefined;
  if (multipart) {
    const upload = await readUpload(ctx, uploadLimit, 'files');
    if (upload.options.files !== undefined)
      throw invalidRequest('In an upload the PDFs are file parts: leave out the files option.', [
        { path: 'files', message: 'give the PDFs as file parts' },
      ]);
    req = parseBody(schema, upload.options);
    parts = upload.files;
    const named = namedParts(req);
    inputs = parts.filter((f) => !named.has(f.path)).map((f) => ({ bytes: f.bytes, path: f.path }));
    for (const [part, password] of Object.entries(req.passwords ?? {})) {
      const input = inputs.find((i) => i.path === part);
      if (!input)
        throw invalidRequest(`passwords names ${JSON.stringify(part)}, which is no PDF part of the upload.`, [
          { path: `passwords.${part}`, message: 'no such PDF part' },
        ]);
      input.password = password;
    }
  } else {
    req = parseBody(schema, await readJsonBody(ctx, { maxBytes: uploadLimit.maxFieldBytes }));
    if (req.passwords !== undefined)
      throw invalidRequest('passwords applies to an upload; in JSON give each file its password.', [
        { path: 'passwords', message: 'give files[].password instead' },
      ]);
    inputs = (req.files ?? []).map((f, i) => ({
      bytes: Buffer.from(f.data, 'base64'),
      path: f.name ?? `files.${i}`,
      ...(f.password !== undefined && { password: f.password }),
    }));
  }
  const rule = PDF_TOOL_RULES[tool];
  const max = rule.maxFiles ?? pdfMaxFiles;
  if (inputs.length < rule.minFiles || inputs.length > max) {
    const want =
      rule.minFiles === rule.maxFiles
        ? `exactly ${rule.minFiles} PDF`
        : `${rule.minFiles} to ${max} PDFs (pdf.maxFiles)`;
    throw invalidRequest(`${tool} takes ${want}; ${inputs.length} were sent.`, [
      { path: 'files', message: `${inputs.length} PDFs sent, ${want} needed` },
    ]);
  }
  const finishing = finishingOf(req as FinishingWire, parts);
  if (tool === 'flatten') finishing.flatten = true;
  return { req, tool, inputs, finishing };
}

/** The upload parts the options name as files of their own (attachments, images): not input PDFs. */
function namedParts(req: PdfToolRequest): Set<string> {
  const r = req as Partial<Record<string, unknown>> & PdfToolRequest;
  const names = [
    ...((r.embeds as { file?: string }[] | undefined) ?? []).map((e) => e.file),
    (r.facturx as { file?: string } | undefined)?.file,
    (r.watermark as { image?: { file?: string } } | undefined)?.image?.file,
    (r.stamp as { image?: { file?: string } } | undefined)?.image?.file,
  ];
  return new Set(names.filter((n): n is string => n !== undefined));
}
