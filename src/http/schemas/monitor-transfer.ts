// GET /api/monitors/export and POST /api/monitors/import: their queries and answers.
import { z } from 'zod';

/** The body of an import: 5 MiB, whatever its format (a zip's url-watches.json has its own cap). */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

export const importQuery = z
  .object({
    dryRun: z
      .enum(['true', 'false'])
      .optional()
      .transform((v) => v === 'true')
      .describe('true: check every entry and say what would be imported, creating nothing'),
  })
  .strict();

export const exportQuery = z
  .object({ tag: z.string().min(1).max(40).optional().describe('Only monitors with this tag (once tags exist)') })
  .strict();

export const monitorExportSchema = z
  .object({
    format: z.literal('pagewatch.monitors'),
    version: z.literal(1),
    exportedAt: z.string().describe('When the file was made (ISO 8601)'),
    monitors: z
      .array(z.record(z.string(), z.unknown()))
      .describe('Each monitor as the body POST /api/monitors accepts: settings only, no ids, status or secrets'),
    secretsOmitted: z
      .array(z.object({ name: z.string(), fields: z.array(z.string()) }).strict())
      .describe('Per monitor (by name), the paths of the secrets left out, e.g. capture.headers.X-Token'),
    notes: z.array(z.string()).describe('What the file does not carry (channel ids, secrets)'),
  })
  .strict();

export const importResultSchema = z
  .object({
    format: z.enum(['pagewatch', 'changedetection.io', 'urlwatch']),
    imported: z
      .array(z.object({ id: z.string(), name: z.string(), url: z.string() }).strict())
      .describe('The monitors created (empty on a dry run)'),
    wouldImport: z.number().int().optional().describe('Dry run: how many entries would be created'),
    skipped: z
      .array(z.object({ entry: z.string(), reason: z.string() }).strict())
      .describe('Entries not imported, each with why (its validation error, the monitor cap, an unsupported kind)'),
    notMapped: z
      .array(z.object({ name: z.string(), fields: z.array(z.string()) }).strict())
      .describe('Per imported entry, the source fields that have no equivalent here and were left out'),
  })
  .strict();

export type ImportResult = z.infer<typeof importResultSchema>;
