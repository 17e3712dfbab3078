// GET /openapi.json: an OpenAPI 3.1 document generated from the same zod schemas that validate
// requests, built once per service from its configuration, so every range and maximum it states is the
// one the service enforces. Only the JSON answers no zod schema describes are written by hand
// (openapi-schemas.ts, with openapi-capture-schemas.ts).
// The route table is in openapi-paths*.ts, the operation helpers in openapi-operations.ts.
import type { z } from 'zod';
import type { Config } from '../config.js';
import { trimTrailingSlashes } from '../domain/trim.js';
import { PACKAGE_VERSION } from '../version.js';
import { propsOf, ref, toJsonSchema } from './openapi-operations.js';
import { buildPaths } from './openapi-paths.js';
import { HEADERS, RESPONSE_SCHEMAS, type JsonSchema } from './openapi-schemas.js';
import { monitorSchema } from './schemas/monitors.js';
import { imageRequestSchema, pdfRequestSchema } from './schemas/render.js';

export type OpenApiDocument = Record<string, unknown>;

/** What the refinements say in words, where a generated schema can only say "string". */
function annotate(schema: JsonSchema, notes: Record<string, JsonSchema>): JsonSchema {
  const props = propsOf(schema);
  for (const [name, extra] of Object.entries(notes)) if (props[name]) Object.assign(props[name], extra);
  return schema;
}

const urlNote = (description: string, example?: string): JsonSchema => ({
  format: 'uri',
  description,
  ...(example && { examples: [example] }),
});

function renderRequestSchema(schema: z.ZodType): JsonSchema {
  return annotate(toJsonSchema(schema), {
    url: urlNote(
      'Address of the page to render: an absolute http or https URL. Exactly one of url or html.',
      'https://example.com',
    ),
    html: { description: 'HTML to render. Exactly one of url or html.', examples: ['<h1>Hello</h1>'] },
    baseUrl: urlNote('Resolves relative links in html (html only)'),
    webhookUrl: urlNote('Told of the async job\'s end (job.succeeded / job.failed); needs "async": true'),
    device: { examples: ['iPhone 13'] },
    timezoneId: { description: 'An IANA time zone such as "Europe/Paris"' },
  });
}

export function buildOpenApi(config: Readonly<Config>): OpenApiDocument {
  const limits = {
    maxTimeoutMs: config.limits.maxTimeoutMs,
    maxRetention: config.monitors.maxRetention,
    minIntervalSeconds: config.monitors.minIntervalSeconds,
    maxFullPageHeight: config.limits.maxFullPageHeight,
    maxImagePixels: config.limits.maxImagePixels,
    maxBodyBytes: config.limits.maxBodyBytes,
  };

  const image = imageRequestSchema(limits);
  const pdf = pdfRequestSchema(limits);
  const monitor = monitorSchema(limits);
  const ImageRequest = {
    ...renderRequestSchema(image),
    description: 'POST /api/image: a page to a PNG, JPEG or WebP image',
  };
  const PdfRequest = { ...renderRequestSchema(pdf), description: 'POST /api/pdf: a page to a PDF' };

  const MonitorCreate = annotate(toJsonSchema(monitor), {
    url: urlNote('The page to watch: an absolute http or https URL', 'https://example.com/pricing'),
    schedule: { examples: ['*/15 * * * *'] },
    timezone: { description: 'An IANA time zone such as "Europe/Paris"', examples: ['Europe/Paris'] },
    webhookUrl: urlNote('Told of changes and captures, as notify says'),
    notify: { description: '"change" → monitor.changed, "failure" → capture.failed, "capture" → capture.completed' },
  });
  MonitorCreate.description = 'A monitor: a page captured on a cron schedule and compared with its previous capture';
  // A JSON Merge Patch: any subset of the fields; null removes a field (its default applies again).
  const MonitorPatch: JsonSchema = {
    type: 'object',
    description:
      'A JSON Merge Patch (RFC 7396) of the monitor: objects merge key by key, null removes a key. The merged ' +
      'monitor is validated as a create is.',
    properties: Object.fromEntries(
      Object.entries(propsOf(MonitorCreate)).map(([name, p]) => [name, { anyOf: [p, { type: 'null' }] }]),
    ),
    additionalProperties: false,
  };
  const monitorOut = toJsonSchema(monitor, 'output');
  const Monitor: JsonSchema = {
    ...monitorOut,
    description: 'A monitor as stored: its settings with every default filled in, and its state',
    properties: {
      id: { type: 'string' },
      ...propsOf(monitorOut),
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      lastRunAt: { type: 'string', format: 'date-time' },
      nextRunAt: { type: 'string', format: 'date-time' },
      lastStatus: { type: 'string', enum: ['baseline', 'unchanged', 'changed', 'failed'] },
      lastChangeAt: { type: 'string', format: 'date-time' },
      skippedRuns: { type: 'integer', description: 'Ticks skipped because the previous capture was still pending' },
    },
    required: [
      'id',
      ...((monitorOut.required as string[] | undefined) ?? []).filter((n) => n !== 'name'),
      'createdAt',
      'updatedAt',
      'skippedRuns',
    ],
  };

  const paths = buildPaths(config);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pagewatch API',
      version: PACKAGE_VERSION,
      description:
        'Render web pages to PDF and images, as async jobs with signed webhooks, and watch pages change. ' +
        'Human documentation: /docs. Every error is `{"error": {"code", "message", "details"?}, "requestId"}`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: trimTrailingSlashes(config.publicUrl) || '/' }],
    security: [{ bearer: [] }, { apiKey: [] }],
    tags: [
      { name: 'Rendering', description: 'URL or HTML to PDF, PNG, JPEG or WebP' },
      { name: 'Jobs', description: 'Async renders' },
      { name: 'Monitors', description: 'Scheduled captures and visual change detection' },
      { name: 'Webhooks', description: 'The delivery log' },
      { name: 'Operations', description: 'Health, readiness, metrics, status' },
      { name: 'Pages', description: 'The web pages the service serves' },
    ],
    paths,
    webhooks: captureWebhooks(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer pw_live_… (keys are made with `pagewatch keys create`)',
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same key in X-API-Key' },
      },
      schemas: { ImageRequest, PdfRequest, MonitorCreate, MonitorPatch, Monitor, ...RESPONSE_SCHEMAS },
      headers: HEADERS,
    },
  };
}

/**
 * The monitor events the service POSTs to a monitor's webhookUrl, signed as Standard Webhooks
 * (webhook-id, webhook-timestamp, webhook-signature headers); any 2xx answer acknowledges one.
 */
function captureWebhooks(): Record<string, JsonSchema> {
  const events: Record<string, string> = {
    'monitor.changed': 'A capture found a change (and its notifyWhen rules, if any, are met); notify includes "change"',
    'capture.completed': 'Every successful capture; notify includes "capture"',
    'capture.failed': 'A capture failed for good; notify includes "failure"',
    'monitor.test': 'Asked for with POST /api/monitors/{id}/test-webhook; whatever notify says',
  };
  return Object.fromEntries(
    Object.entries(events).map(([type, summary]) => [
      type,
      {
        post: {
          summary,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['type', 'timestamp', 'data'],
                  properties: {
                    type: { const: type },
                    timestamp: { type: 'string', format: 'date-time' },
                    data: ref(type === 'monitor.test' ? 'TestEvent' : 'CaptureEvent'),
                  },
                },
              },
            },
          },
          responses: { '2XX': { description: 'Received; any other answer (or none within the timeout) is retried' } },
        },
      },
    ]),
  );
}
