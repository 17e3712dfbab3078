// GET /openapi.json: an OpenAPI 3.1 document built once per service from its configuration and from
// the zod schemas of the requests and answers, so every range and maximum it states is the one the
// service enforces and every field it lists is one a view builds.
import type { Config } from '../../config.js';
import { httpLimits } from '../limits.js';
import { trimTrailingSlashes } from '../../domain/trim.js';
import { PACKAGE_VERSION } from '../../version.js';
import { componentSchemas } from './components.js';
import { HEADERS, ref, type JsonSchema } from './operations.js';
import { buildApiPaths } from './paths-api.js';
import { buildSitePaths } from './paths-site.js';
import { buildFeedPaths } from './paths-feeds.js';

export type OpenApiDocument = Record<string, unknown>;

export function buildOpenApi(config: Readonly<Config>): OpenApiDocument {
  const limits = httpLimits(config);

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
      {
        name: 'PDF tools',
        description: 'Merge, split, convert (PDF/A, PDF/UA), describe, encrypt, stamp, flatten PDFs',
      },
      { name: 'Jobs', description: 'Async renders and PDF tool calls' },
      { name: 'Monitors', description: 'Scheduled captures and visual change detection' },
      { name: 'Channels', description: 'Email, chat, ntfy and JSON webhook channels for alerts' },
      { name: 'Webhooks', description: 'The delivery log' },
      { name: 'Feeds', description: 'Atom feeds of changes at unguessable URLs' },
      { name: 'Operations', description: 'Health, readiness, metrics, status' },
      { name: 'Pages', description: 'The web pages the service serves' },
    ],
    paths: { ...buildApiPaths(config), ...buildFeedPaths(), ...buildSitePaths(config) },
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
      schemas: componentSchemas(limits),
      headers: HEADERS,
    },
  };
}

/** The `data` schema of events that do not carry a capture's figures (CaptureEvent). */
const DATA_SCHEMAS: Record<string, string> = {
  'monitor.test': 'TestEvent',
  'monitor.filter_missing': 'FilterMissingEvent',
};

/**
 * The monitor events the service POSTs to a monitor's webhookUrl, signed as Standard Webhooks
 * (webhook-id, webhook-timestamp, webhook-signature headers); any 2xx answer acknowledges one.
 */
function captureWebhooks(): Record<string, JsonSchema> {
  const events: Record<string, string> = {
    'monitor.changed': 'A capture found a change (and its notifyWhen rules, if any, are met); notify includes "change"',
    'capture.completed': 'Every successful capture; notify includes "capture"',
    'capture.failed': 'A capture failed for good; notify includes "failure"',
    'monitor.filter_missing':
      'A selecting filter matched nothing diff.filterMissingAfter captures in a row (once a streak); notify ' +
      'includes "failure"',
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
                    data: ref(DATA_SCHEMAS[type] ?? 'CaptureEvent'),
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
