// GET /openapi.json: an OpenAPI 3.1 document generated from the same zod schemas that validate
// requests, built once per service from its configuration, so every range and maximum it states is the
// one the service enforces. Only the JSON answers no zod schema describes are written by hand
// (openapi-schemas.ts).
import { z } from 'zod';
import type { Config } from '../config.js';
import type { ErrorCode } from '../errors.js';
import { PACKAGE_VERSION } from '../version.js';
import { HEADERS, listOf, RESPONSE_SCHEMAS, type JsonSchema } from './openapi-schemas.js';
import { deliveryListQuery, jobListQuery, pagingQuery } from './schemas/lists.js';
import { monitorSchema } from './schemas/monitors.js';
import { imageRequestSchema, pdfRequestSchema } from './schemas/render.js';

export type OpenApiDocument = Record<string, unknown>;

/** zod → JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). Refinements are not representable and are left out. */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  // A "#/$defs/..." reference would point into the OpenAPI document, not this schema: none may appear.
  if ('$defs' in out || JSON.stringify(out).includes('"$ref"')) throw new Error('a request schema needs $defs; lift them into components');
  return out;
}

const propsOf = (schema: JsonSchema) => schema.properties as Record<string, JsonSchema>;

/** What the refinements say in words, where a generated schema can only say "string". */
function annotate(schema: JsonSchema, notes: Record<string, JsonSchema>): JsonSchema {
  const props = propsOf(schema);
  for (const [name, extra] of Object.entries(notes)) if (props[name]) Object.assign(props[name], extra);
  return schema;
}

const urlNote = (description: string, example?: string): JsonSchema =>
  ({ format: 'uri', description, ...(example && { examples: [example] }) });

function renderRequestSchema(schema: z.ZodType): JsonSchema {
  return annotate(toJsonSchema(schema), {
    url: urlNote('Address of the page to render: an absolute http or https URL. Exactly one of url or html.', 'https://example.com'),
    html: { description: 'HTML to render. Exactly one of url or html.', examples: ['<h1>Hello</h1>'] },
    baseUrl: urlNote('Resolves relative links in html (html only)'),
    webhookUrl: urlNote('Told of the async job\'s end (job.succeeded / job.failed); needs "async": true'),
    device: { examples: ['iPhone 13'] },
    timezoneId: { description: 'An IANA time zone such as "Europe/Paris"' },
  });
}

function queryParameters(schema: z.ZodType): JsonSchema[] {
  const json = toJsonSchema(schema);
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(propsOf(json)).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return { name, in: 'query', required: required.has(name), ...(description !== undefined && { description }), schema: rest };
  });
}

// --- responses ------------------------------------------------------------------------------------

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const hdr = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const BINARY = { type: 'string', format: 'binary' };
const binary = (...types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: BINARY }]));
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const CODE_WHEN: Record<ErrorCode, string> = {
  invalid_request: 'the body or query failed validation; `details` lists `{path, message}` per field',
  unauthorized: 'missing, unknown or revoked API key where one is required',
  url_blocked: 'the target URL (or a redirect hop) is not allowed by the egress policy',
  not_found: 'unknown id, or another key\'s resource',
  conflict: 'the request conflicts with the resource\'s state',
  gone: 'the job result expired (jobs.resultTtlHours) and was removed',
  payload_too_large: 'the body is over the limit',
  unsupported_media_type: 'the body is not of an accepted Content-Type',
  render_failed: 'the page could not be rendered',
  rate_limited: 'over the per-key or per-IP rate limit',
  queue_full: 'the render queue (or the key\'s job queue) is full',
  internal: 'a bug: the message is generic, the cause is in the log under the request id',
  unavailable: 'shutting down, or the browser cannot be started',
  render_timeout: 'the render exceeded its timeout',
};
const STATUS_OF: Record<ErrorCode, string> = {
  invalid_request: '400', unauthorized: '401', url_blocked: '403', not_found: '404', conflict: '409', gone: '410',
  payload_too_large: '413', unsupported_media_type: '415', render_failed: '422', rate_limited: '429', queue_full: '429',
  internal: '500', unavailable: '503', render_timeout: '504',
};

/** Error responses for the given codes, grouped by status, each the shared Error body with its codes. */
function errors(codes: ErrorCode[], why: Partial<Record<ErrorCode, string>> = {}): Record<string, JsonSchema> {
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of codes) byStatus.set(STATUS_OF[code], [...(byStatus.get(STATUS_OF[code]) ?? []), code]);
  return Object.fromEntries([...byStatus].map(([status, list]) => [status, {
    description: list.map((c) => `\`${c}\`: ${why[c] ?? CODE_WHEN[c]}`).join('; '),
    headers: hdr('X-Request-Id', ...(status === '429' ? ['Retry-After'] : [])),
    content: json({ allOf: [ref('Error'), { properties: { error: { properties: { code: { enum: list } } } } }] }),
  }]));
}

type Access = 'key' | 'anonymous' | 'public';
const SECURITY: Record<Access, JsonSchema[] | undefined> = {
  key: undefined, // the document's default: a key, either way
  anonymous: [{}, { bearer: [] }, { apiKey: [] }], // no key is fine; a key sent must be valid
  public: [], // outside /api/: keys are neither needed nor looked at
};
/** What every /api/ route with a principal may answer besides its own errors. */
const API_ERRORS: ErrorCode[] = ['unauthorized', 'rate_limited', 'internal', 'unavailable'];
const PAGE_ERRORS: ErrorCode[] = ['internal', 'unavailable'];

interface Op {
  id: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
}

function operation(op: Op): JsonSchema {
  const rateLimited = op.access !== 'public';
  const responses = Object.fromEntries(Object.entries(op.responses).map(([status, r]) => [status,
    status.startsWith('2') ? { ...r, headers: { ...hdr('X-Request-Id', ...(rateLimited ? ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] : [])), ...(r.headers as object) } } : r]));
  return {
    operationId: op.id, summary: op.summary, ...(op.description && { description: op.description }), tags: [op.tag],
    ...(SECURITY[op.access] && { security: SECURITY[op.access] }),
    ...(op.parameters?.length && { parameters: op.parameters }),
    ...(op.requestBody && { requestBody: op.requestBody }),
    responses,
  };
}

const idParam = (what: string) => ({ name: 'id', in: 'path', required: true, description: `The ${what}'s id`, schema: { type: 'string' } });

export function buildOpenApi(config: Readonly<Config>): OpenApiDocument {
  const limits = { maxTimeoutMs: config.limits.maxTimeoutMs, maxRetention: config.monitors.maxRetention };
  const anonymous = config.auth.anonymous;

  const image = imageRequestSchema(limits);
  const pdf = pdfRequestSchema(limits);
  const monitor = monitorSchema(limits);
  const ImageRequest = { ...renderRequestSchema(image), description: 'POST /api/image: a page to a PNG, JPEG or WebP image' };
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
    description: 'A JSON Merge Patch (RFC 7396) of the monitor: objects merge key by key, null removes a key. The merged monitor is validated as a create is.',
    properties: Object.fromEntries(Object.entries(propsOf(MonitorCreate)).map(([name, p]) => [name, { anyOf: [p, { type: 'null' }] }])),
    additionalProperties: false,
  };
  const monitorOut = toJsonSchema(monitor, 'output');
  const Monitor: JsonSchema = {
    ...monitorOut,
    description: 'A monitor as stored: its settings with every default filled in, and its state',
    properties: {
      id: { type: 'string' }, ...propsOf(monitorOut),
      createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
      lastRunAt: { type: 'string', format: 'date-time' }, nextRunAt: { type: 'string', format: 'date-time' },
      lastStatus: { type: 'string', enum: ['baseline', 'unchanged', 'changed', 'failed'] },
      lastChangeAt: { type: 'string', format: 'date-time' },
      skippedRuns: { type: 'integer', description: 'Ticks skipped because the previous capture was still pending' },
    },
    required: ['id', ...((monitorOut.required as string[] | undefined) ?? []).filter((n) => n !== 'name'), 'createdAt', 'updatedAt', 'skippedRuns'],
  };

  const renderBody = (schemaName: string) => ({
    required: true,
    description: `JSON with every option, or (the raw-HTML shortcut) an HTML document as text/html: the same as {"html": <body>} with every default. At most ${config.limits.maxBodyBytes} bytes${anonymous ? ` (${Math.min(config.limits.maxBodyBytes, config.limits.anonymousMaxBodyBytes)} without a key)` : ''}.`,
    content: {
      'application/json': { schema: ref(schemaName) },
      'text/html': { schema: { type: 'string', description: 'The HTML to render' } },
    },
  });
  const idempotencyKey = {
    name: 'Idempotency-Key', in: 'header', required: false,
    description: 'Async only: the same key and request within 24 h answers 200 with the same job; another request under it 409',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  };
  const renderErrors = errors([
    'invalid_request', 'unauthorized', 'url_blocked', 'conflict', 'payload_too_large', 'unsupported_media_type', 'render_failed',
    'rate_limited', 'queue_full', 'internal', 'unavailable', 'render_timeout',
  ], {
    unauthorized: anonymous ? 'a key was sent but is unknown or revoked, or "async" without a key' : 'missing, unknown or revoked API key',
    conflict: 'the Idempotency-Key was used with a different request',
    payload_too_large: `the body is over ${config.limits.maxBodyBytes} bytes (${config.limits.anonymousMaxBodyBytes} without a key)`,
    unsupported_media_type: 'the body is neither application/json nor text/html',
    render_failed: 'navigation error, main document status >= 400 with failOnHttpError, waitForSelector never matched, selector not found',
    queue_full: `more than render.queueSize (${config.render.queueSize}) renders waiting, or jobs.maxQueuedPerKey (${config.jobs.maxQueuedPerKey}) async jobs`,
  });
  const renderOp = (id: string, schemaName: string, summary: string, types: string[], extraHeaders: string[]) => operation({
    id, summary, tag: 'Rendering', access: anonymous ? 'anonymous' : 'key',
    description: `Synchronous by default: the answer is the output. With "async": true (API key required) the answer is 202 with a job. ${anonymous ? `Without a key: synchronous only, bodies up to ${config.limits.anonymousMaxBodyBytes} bytes, ${config.rateLimit.anonymousPerMinute} requests a minute per IP.` : ''}`.trim(),
    parameters: [idempotencyKey],
    requestBody: renderBody(schemaName),
    responses: {
      200: {
        description: 'The output (or, with "response": "json", JSON with base64 data; for a repeated Idempotency-Key, the earlier job)',
        headers: hdr('Content-Disposition', 'X-Render-Ms', 'X-Final-Url', ...extraHeaders),
        content: { ...binary(...types), ...json({ anyOf: [ref('RenderJson'), ref('Job')] }) },
      },
      202: { description: 'Async: the job was queued', headers: hdr('Location'), content: json(ref('Job')) },
      ...renderErrors,
    },
  });

  const keyed = (codes: ErrorCode[], why?: Partial<Record<ErrorCode, string>>) => errors([...codes, ...API_ERRORS], why);
  const list = (item: string) => ({ description: 'A page, newest first', content: json(listOf(item)) });
  const one = (name: string, description: string) => ({ description, content: json(ref(name)) });
  const jsonBody = (schema: JsonSchema) => ({ required: true, content: { 'application/json': { schema } } });
  const bodyErrors: ErrorCode[] = ['invalid_request', 'payload_too_large', 'unsupported_media_type'];
  const page = (id: string, summary: string) => ({
    get: operation({
      id, summary, tag: 'Pages', access: 'public',
      responses: { 200: { description: 'An HTML page (strict Content-Security-Policy, no inline script)', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(PAGE_ERRORS) },
    }),
  });

  const paths: Record<string, Record<string, unknown>> = {
    '/api/pdf': { post: renderOp('renderPdf', 'PdfRequest', 'Render a page to PDF', ['application/pdf'], ['X-Page-Count']) },
    '/api/image': { post: renderOp('renderImage', 'ImageRequest', 'Render a page to an image', ['image/png', 'image/jpeg', 'image/webp'], ['X-Truncated']) },

    '/api/jobs': {
      get: operation({
        id: 'listJobs', summary: 'List the key\'s async jobs', tag: 'Jobs', access: 'key',
        parameters: queryParameters(jobListQuery), responses: { 200: list('Job'), ...keyed(['invalid_request']) },
      }),
    },
    '/api/jobs/{id}': {
      parameters: [idParam('job')],
      get: operation({ id: 'getJob', summary: 'Get a job', tag: 'Jobs', access: 'key', responses: { 200: one('Job', 'The job'), ...keyed(['not_found']) } }),
      delete: operation({
        id: 'cancelJob', summary: 'Cancel a queued or running job', tag: 'Jobs', access: 'key',
        responses: { 200: one('Job', 'The canceled job'), ...keyed(['not_found', 'conflict'], { conflict: 'the job has already finished' }) },
      }),
    },
    '/api/jobs/{id}/result': {
      parameters: [idParam('job')],
      get: operation({
        id: 'getJobResult', summary: 'Download a job\'s result', tag: 'Jobs', access: 'key',
        description: `Kept for jobs.resultTtlHours (${config.jobs.resultTtlHours} h), then 410.`,
        responses: {
          200: { description: 'The output', headers: hdr('Content-Disposition'), content: binary('application/pdf', 'image/png', 'image/jpeg', 'image/webp') },
          ...keyed(['not_found', 'gone'], { not_found: 'unknown job, or it has not succeeded' }),
        },
      }),
    },

    '/api/monitors': {
      post: operation({
        id: 'createMonitor', summary: 'Create a monitor', tag: 'Monitors', access: 'key', requestBody: jsonBody(ref('MonitorCreate')),
        responses: {
          201: { description: 'Created', headers: hdr('Location'), content: json(ref('Monitor')) },
          ...keyed([...bodyErrors, 'url_blocked', 'conflict'], { conflict: `the key already has monitors.maxPerKey (${config.monitors.maxPerKey}) monitors` }),
        },
      }),
      get: operation({
        id: 'listMonitors', summary: 'List the key\'s monitors', tag: 'Monitors', access: 'key',
        parameters: queryParameters(pagingQuery), responses: { 200: list('Monitor'), ...keyed(['invalid_request']) },
      }),
    },
    '/api/monitors/{id}': {
      parameters: [idParam('monitor')],
      get: operation({ id: 'getMonitor', summary: 'Get a monitor', tag: 'Monitors', access: 'key', responses: { 200: one('Monitor', 'The monitor'), ...keyed(['not_found']) } }),
      patch: operation({
        id: 'updateMonitor', summary: 'Change a monitor (JSON Merge Patch)', tag: 'Monitors', access: 'key', requestBody: jsonBody(ref('MonitorPatch')),
        responses: { 200: one('Monitor', 'The changed monitor'), ...keyed([...bodyErrors, 'url_blocked', 'not_found']) },
      }),
      delete: operation({
        id: 'deleteMonitor', summary: 'Delete a monitor with its captures and files', tag: 'Monitors', access: 'key',
        responses: { 204: { description: 'Deleted' }, ...keyed(['not_found']) },
      }),
    },
    '/api/monitors/{id}/run': {
      parameters: [idParam('monitor')],
      post: operation({
        id: 'runMonitor', summary: 'Capture now', tag: 'Monitors', access: 'key',
        description: 'Queues a capture (also for a paused monitor). While one is pending, answers that one.',
        responses: { 202: { description: 'Queued', headers: hdr('Location'), content: json(ref('RunAccepted')) }, ...keyed(['not_found']) },
      }),
    },
    '/api/monitors/{id}/captures': {
      parameters: [idParam('monitor')],
      get: operation({
        id: 'listCaptures', summary: 'A monitor\'s captures', tag: 'Monitors', access: 'key',
        parameters: queryParameters(pagingQuery), responses: { 200: list('Capture'), ...keyed(['invalid_request', 'not_found']) },
      }),
    },
    '/api/captures/{id}': {
      parameters: [idParam('capture')],
      get: operation({ id: 'getCapture', summary: 'Get a capture', tag: 'Monitors', access: 'key', responses: { 200: one('Capture', 'The capture'), ...keyed(['not_found']) } }),
    },
    '/api/captures/{id}/image': {
      parameters: [idParam('capture')],
      get: operation({
        id: 'getCaptureImage', summary: 'The captured image', tag: 'Monitors', access: 'key',
        responses: { 200: { description: 'PNG', content: binary('image/png') }, ...keyed(['not_found']) },
      }),
    },
    '/api/captures/{id}/diff': {
      parameters: [idParam('capture')],
      get: operation({
        id: 'getCaptureDiff', summary: 'The diff image: changed pixels in red', tag: 'Monitors', access: 'key',
        responses: { 200: { description: 'PNG', content: binary('image/png') }, ...keyed(['not_found'], { not_found: 'unknown capture, or no pixel differed' }) },
      }),
    },

    '/api/webhook-deliveries': {
      get: operation({
        id: 'listDeliveries', summary: 'The webhook delivery log', tag: 'Webhooks', access: 'key',
        parameters: queryParameters(deliveryListQuery), responses: { 200: list('Delivery'), ...keyed(['invalid_request']) },
      }),
    },
    '/api/webhook-deliveries/{id}': {
      parameters: [idParam('delivery')],
      get: operation({
        id: 'getDelivery', summary: 'A delivery with every attempt', tag: 'Webhooks', access: 'key',
        responses: { 200: one('DeliveryDetail', 'The delivery and its history'), ...keyed(['not_found']) },
      }),
    },
    '/api/webhook-deliveries/{id}/redeliver': {
      parameters: [idParam('delivery')],
      post: operation({
        id: 'redeliver', summary: 'Send a delivery again now', tag: 'Webhooks', access: 'key',
        description: 'Works on pending, failed and succeeded deliveries; the retry schedule starts over.',
        responses: { 202: one('Delivery', 'Due now'), ...keyed(['not_found']) },
      }),
    },

    '/api/status': {
      get: operation({
        id: 'getStatus', summary: 'The service\'s figures (what /status shows)', tag: 'Operations', access: 'anonymous',
        description: 'Public: no key needed (a key that is sent must be valid).',
        responses: { 200: one('Status', 'Aggregate figures'), ...errors(['unauthorized', ...PAGE_ERRORS], { unauthorized: 'a key was sent but is unknown or revoked' }) },
      }),
    },
    '/health': {
      get: operation({
        id: 'health', summary: 'Liveness: 200 while the process runs', tag: 'Operations', access: 'public',
        responses: { 200: one('Health', 'Running'), ...errors(['internal']) },
      }),
    },
    '/ready': {
      get: operation({
        id: 'ready', summary: 'Readiness: the database and the browser are usable', tag: 'Operations', access: 'public',
        responses: { 200: one('Ready', 'Ready'), ...errors(['internal', 'unavailable'], { unavailable: 'not ready (details name the failing checks) or shutting down' }) },
      }),
    },
    '/metrics': {
      get: operation({
        id: 'metrics', summary: 'Prometheus metrics', tag: 'Operations', access: 'public',
        responses: { 200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errors(PAGE_ERRORS) },
      }),
    },
    '/openapi.json': {
      get: operation({
        id: 'openapi', summary: 'This document', tag: 'Operations', access: 'public',
        responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) }, ...errors(PAGE_ERRORS) },
      }),
    },

    '/': page('converterPage', 'The converter: URL or HTML in, PDF or image out'),
    '/monitors': page('monitorsPage', 'The monitor dashboard'),
    '/status': page('statusPage', 'The status page'),
    '/docs': page('docsPage', 'The documentation'),
    '/assets/{file}': {
      get: operation({
        id: 'asset', summary: 'A stylesheet, script or image of the pages', tag: 'Pages', access: 'public',
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*\\.(css|js|svg)$' } }],
        responses: {
          200: { description: 'The file', content: { 'text/css': { schema: { type: 'string' } }, 'text/javascript': { schema: { type: 'string' } }, 'image/svg+xml': { schema: { type: 'string' } } } },
          ...errors(['not_found', ...PAGE_ERRORS], { not_found: 'no such asset' }),
        },
      }),
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pagewatch API',
      version: PACKAGE_VERSION,
      description: 'Render web pages to PDF and images, as async jobs with signed webhooks, and watch pages change. '
        + 'Human documentation: /docs. Every error is `{"error": {"code", "message", "details"?}, "requestId"}`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: config.publicUrl.replace(/\/+$/, '') || '/' }],
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
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer pw_live_… (keys are made with `pagewatch keys create`)' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same key in X-API-Key' },
      },
      schemas: { ImageRequest, PdfRequest, MonitorCreate, MonitorPatch, Monitor, ...RESPONSE_SCHEMAS },
      headers: HEADERS,
    },
  };
}
