// What the operations routes answer: GET /api/status (the figures /status draws), /health and /ready.
import { z } from 'zod';
import { NODE_ROLES } from '../../../domain/node-role.js';
import { OUTCOMES, type Outcome } from '../../../operations/render-history.js';
import type { StatusSnapshot } from '../../../operations/status.js';
import type { Documents, Holds } from '../type-checks.js';
import { dateTime } from './common.js';

const outcomeCounts = Object.fromEntries(OUTCOMES.map((o) => [o, z.int()])) as Record<Outcome, z.ZodInt>;

const outcomes = <Extra extends z.ZodRawShape>(extra: Extra) =>
  z
    .object({ ...outcomeCounts, ...extra })
    .describe(
      'Render requests by how they ended: ok; failed (the page could not be rendered, it crashed, or the ' +
        'browser was down); blocked (url_blocked); timedOut (render_timeout); rateLimited and queueFull (refused with 429, ' +
        'before any render); canceled (the client went away)',
    );

const percentiles = (what: string) =>
  z
    .object({ count: z.int(), p50: z.int(), p95: z.int(), max: z.int() })
    .nullable()
    .describe(
      `${what}, ms: p50 and p95 read from a histogram with 10 % wide buckets (within 10 % of the exact value); ` +
        'null when there were none',
    );

const lastHour = z
  .object({
    node: z.string().describe('The node these figures are of: the one that answered'),
    from: dateTime().describe('Start of the oldest minute (UTC)'),
    to: dateTime().describe('Now (UTC)'),
    minuteSeconds: z.int().describe('Width of a bucket: 60'),
    renders: outcomes({ total: z.int().optional() }),
    renderMs: percentiles('Time of successful renders, queue wait included (as X-Render-Ms)'),
    queueWaitMs: percentiles('Time each render waited for a render slot'),
    minutes: z
      .array(
        z.object({
          start: dateTime(),
          renders: outcomes({}),
          renderMs: percentiles('Successful renders of this minute'),
          queueWaitMs: percentiles('Queue waits of this minute'),
        }),
      )
      .describe('The 60 minutes of the window, oldest first; the last is the current minute so far'),
  })
  .describe(
    "The last hour of this node's renders (synchronous, async jobs and monitor captures), kept in its " +
      'memory: a restart starts it over, and with several nodes each answers with its own',
  );

const webhookDeliveries = z
  .object({
    pending: z.int().describe('Waiting to be sent: the backlog'),
    retrying: z.int().describe('Of those, failed at least once and waiting for a retry'),
    oldestPendingAt: z.string().nullable().describe('When the oldest waiting delivery was recorded'),
    lastHour: z
      .object({ succeeded: z.int(), failed: z.int().describe('Failed for good') })
      .describe('Deliveries that ended in the last hour'),
  })
  .describe("The cluster's webhook deliveries (from the database)");

const storage = z
  .object({
    captureBytes: z.int().describe("Monitors' capture images and diffs kept"),
    resultBytes: z.int().describe('Results of async jobs not yet expired'),
  })
  .describe('Disk used, as the records count it (no file is read; refreshed at most every 5 s)');

export const status = z
  .object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    startedAt: dateTime().optional(),
    uptimeSeconds: z.int().optional(),
    browser: z.object({
      up: z.boolean().optional(),
      version: z.string().nullable().optional(),
      renders: z.int().optional(),
      restarts: z.int().optional(),
      warmPages: z.int().optional(),
      pagesCreated: z.int().optional(),
      pagesUnloaded: z.int().optional(),
    }),
    render: z.object({
      active: z.int().optional(),
      queued: z.int().optional(),
      concurrency: z.int().optional(),
      queueSize: z.int().optional(),
    }),
    jobs: z.record(z.string(), z.int()).optional().describe('Jobs by status'),
    monitors: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Counts (active, paused, failing: not paused and its last run failed) and the next runs'),
    webhooks: z.record(z.string(), z.int()).optional().describe('Deliveries by status'),
    node: z
      .object({ id: z.string(), role: z.enum(NODE_ROLES) })
      .optional()
      .describe('The node that answered'),
    cluster: z
      .object({
        nodes: z
          .array(
            z.object({
              id: z.string(),
              role: z.enum(NODE_ROLES),
              host: z.string(),
              version: z.string(),
              startedAt: dateTime(),
              heartbeatAt: dateTime(),
              alive: z.boolean().describe('Its heartbeat (every 5 s) is at most 15 s old'),
            }),
          )
          .describe('Every node over this database, oldest start first'),
      })
      .optional(),
    time: dateTime().optional(),
    lastHour: lastHour.optional(),
    webhookDeliveries: webhookDeliveries.optional(),
    storage: storage.optional(),
  })
  .describe('Aggregate figures, and the nodes of the cluster; no job or key ids, URLs or keys');
export type StatusDocumented = Holds<Documents<StatusSnapshot, typeof status>>;

export const health = z.object({ status: z.literal('ok') });

export const ready = z.object({
  status: z.literal('ready'),
  checks: z.object({
    database: z.literal('ok').optional(),
    browser: z.literal('ok').optional(),
    storage: z
      .literal('ok')
      .optional()
      .describe('The disk of dataDir has storage.minFreeBytes free (only when this node writes there)'),
    fonts: z
      .enum(['ok', 'warn', 'unknown'])
      .optional()
      .describe(
        'Whether Chromium has a font for Han, Kana, Hangul, Devanagari, Arabic and colour emoji: warn = some have ' +
          'none (missingFonts; their text renders as boxes, the service stays ready); unknown = fc-list could not tell',
      ),
    pdfTools: z
      .enum(['ok', 'warn'])
      .optional()
      .describe(
        'Whether the PDF tools can run: warn = qpdf is not installed (a warning says so; renders still work, ' +
          'the PDF tools answer 503)',
      ),
    pdfText: z
      .enum(['ok', 'warn'])
      .optional()
      .describe(
        'Whether watched PDFs can be read: warn = poppler-utils (pdftotext, pdftoppm) is not installed (a warning ' +
          'says so; captures of monitors that watch a PDF fail, everything else works)',
      ),
  }),
  sandbox: z.enum(['on', 'off']).describe('Whether Chromium runs with its sandbox (render.sandbox)'),
  missingFonts: z
    .array(z.string())
    .optional()
    .describe('The scripts no font covers, e.g. "Hangul (Korean)" (with checks.fonts = warn)'),
  warnings: z
    .array(z.string())
    .optional()
    .describe(
      'Present when the sandbox is off because the service runs as root, when scripts have no font, or when the ' +
        'PDF tools are unavailable or watched PDFs cannot be read',
    ),
});
export type Ready = z.output<typeof ready>;
