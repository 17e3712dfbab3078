// GET /api/monitors/export and POST /api/monitors/import. Registered before /api/monitors/:id, so that
// "export" is never read as a monitor id. Each imported entry is validated by the same schema as a POST
// and created by the same service call, one by one: a bad entry is skipped with its reason.
import type Router from '@koa/router';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError, invalidRequest, payloadTooLarge, unsupportedMediaType } from '../../errors.js';
import type { MonitorService } from '../../monitors/service.js';
import { exportMonitors } from '../../monitors/transfer/export.js';
import { IMPORT_MEDIA_TYPES, importMediaType, parseImport } from '../../monitors/transfer/detect.js';
import type { ImportCandidate } from '../../monitors/transfer/types.js';
import { baseUrlOf, keyIdOf } from '../principal.js';
import { exactRouter } from '../router.js';
import { exportQuery, importQuery, MAX_IMPORT_BYTES, type ImportResult } from '../schemas/monitor-transfer.js';
import { monitorSchema } from '../schemas/monitors.js';
import type { SchemaLimits } from '../schemas/request-options.js';
import { parseBody } from '../validate.js';

export interface MonitorTransferDeps {
  monitors: MonitorService;
  limits: SchemaLimits & { maxRetention: number; minIntervalSeconds: number };
  publicUrl: string;
}

const PAGE = 500;

export function monitorTransferRoutes({ monitors, limits, publicUrl }: MonitorTransferDeps): Router {
  const schema = monitorSchema(limits);
  const router = exactRouter();

  router.get('/api/monitors/export', async (ctx) => {
    const q = parseBody(exportQuery, { ...ctx.query });
    const keyId = keyIdOf(ctx);
    const all = [];
    for (let before: { createdAt: string; id: string } | undefined; ;) {
      const rows = await monitors.list(keyId, { limit: PAGE, before });
      all.push(...rows);
      if (rows.length < PAGE) break;
      const last = rows[rows.length - 1]!;
      before = { createdAt: last.createdAt, id: last.id };
    }
    const wanted = q.tag === undefined ? all : all.filter((m) => hasTag(m.settings, q.tag!));
    ctx.body = exportMonitors(wanted.reverse(), new Date().toISOString()); // oldest first: imported in that order
    ctx.set('Content-Disposition', 'attachment; filename="pagewatch-monitors.json"');
  });

  router.post('/api/monitors/import', async (ctx) => {
    const { dryRun } = parseBody(importQuery, { ...ctx.query });
    const type = ctx.request.type.trim().toLowerCase();
    if (!importMediaType(type)) throw unsupportedMediaType(ctx.get('Content-Type') || undefined, IMPORT_MEDIA_TYPES);
    const parsed = parseImport(type, await readBytes(ctx));
    const keyId = keyIdOf(ctx);
    const result: ImportResult = { format: parsed.format, imported: [], skipped: [...parsed.skipped], notMapped: [] };
    let would = 0;
    for (const candidate of parsed.candidates) {
      const checked = validate(candidate);
      if ('reason' in checked) {
        result.skipped.push({ entry: candidate.entry, reason: checked.reason });
        continue;
      }
      try {
        if (dryRun) would++;
        else {
          const monitor = await monitors.create(keyId, checked.settings, baseUrlOf(ctx, publicUrl));
          result.imported.push({ id: monitor.id, name: monitor.settings.name, url: monitor.settings.url });
        }
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        result.skipped.push({ entry: candidate.entry, reason: err.message });
        continue;
      }
      if (checked.notMapped.length) result.notMapped.push({ name: candidate.entry, fields: checked.notMapped });
    }
    if (dryRun) result.wouldImport = would;
    ctx.body = result;
  });

  /**
   * The entry as a POST body would be validated. Tags are mapped even where monitors do not take them
   * yet: then they are left out and listed as not mapped rather than failing the entry.
   */
  function validate(
    candidate: ImportCandidate,
  ): { settings: ReturnType<typeof schema.parse>; notMapped: string[] } | { reason: string } {
    type Attempt = { settings: ReturnType<typeof schema.parse> } | { error: AppError };
    const attempt = (body: Record<string, unknown>): Attempt => {
      try {
        return { settings: parseBody(schema, body) };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return { error: err };
      }
    };
    let outcome = attempt(candidate.body);
    const notMapped = [...candidate.notMapped];
    if ('error' in outcome && candidate.body.tags !== undefined && refusesTags(outcome.error)) {
      const { tags: _tags, ...rest } = candidate.body;
      outcome = attempt(rest);
      notMapped.push('tags');
    }
    if ('error' in outcome) return { reason: reasonOf(outcome.error) };
    return { settings: outcome.settings, notMapped };
  }

  return router;
}

const refusesTags = (err: AppError) =>
  (err.extra.details ?? []).some((d) => d.path === 'tags' && /not a field/.test(d.message));

const reasonOf = (err: AppError) =>
  err.extra.details?.length
    ? err.extra.details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ')
    : err.message;

function hasTag(settings: object, tag: string): boolean {
  const tags = (settings as { tags?: unknown }).tags;
  return Array.isArray(tags) && tags.some((t) => typeof t === 'string' && t.toLowerCase() === tag.trim().toLowerCase());
}

/** The body as bytes, capped while reading (and up front from Content-Length). */
async function readBytes(ctx: Context): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit: MAX_IMPORT_BYTES, length: ctx.get('Content-Length') || undefined });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw payloadTooLarge(MAX_IMPORT_BYTES);
    throw invalidRequest(`The request body could not be read (${(err as Error).message}); send it again.`);
  }
}
