// The parts of the OpenAPI document no zod schema describes: the shapes of JSON answers that are built
// by view functions (jobs, captures, deliveries, status), the shared error body and the headers.
// Kept small on purpose: the request schemas, where the detail matters, are generated.
// The capture schemas are in openapi-capture-schemas.ts, the small builders in openapi-schema-kit.ts.
import { JOB_STATUSES } from '../domain/job-outcome.js';
import { DELIVERY_STATUSES } from '../domain/delivery-status.js';
import { ERROR_CODES } from '../errors.js';
import { EVENT_TYPES } from '../webhooks/outbox.js';
import { ref } from './openapi-operations.js';
import { CAPTURE_SCHEMAS } from './openapi-capture-schemas.js';
import { codeAndMessage, int, obj, str, time, url } from './openapi-schema-kit.js';
import { STATUS_ADDITIONS } from './openapi-status-schema.js';

export type JsonSchema = Record<string, unknown>;

export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = {
  Error: obj(
    {
      error: obj(
        {
          code: { type: 'string', enum: [...ERROR_CODES] },
          message: str('For a person; the code is what a program should look at'),
          details: {
            type: 'array',
            description:
              'One entry per problem (400 invalid_request: one sentence per bad field; 422 render_failed for a page ' +
              'that could not be loaded: path "url" with the raw network code, e.g. net::ERR_CONNECTION_REFUSED)',
            items: obj({ path: str('The field, dotted (e.g. "viewport.width"), or a header name'), message: str() }, [
              'path',
              'message',
            ]),
          },
        },
        ['code', 'message'],
      ),
      requestId: str('The same as the X-Request-Id header; the service log has the cause under it'),
    },
    ['error', 'requestId'],
    { additionalProperties: false },
  ),

  Job: obj(
    {
      id: str(),
      kind: { type: 'string', enum: ['pdf', 'image'] },
      status: { type: 'string', enum: [...JOB_STATUSES] },
      createdAt: time(),
      startedAt: time(),
      finishedAt: time(),
      attempts: int('Tries so far (at most jobs.maxAttempts)'),
      error: { ...codeAndMessage, description: 'Why a failed job failed' },
      result: obj(
        {
          url: url('GET it with the same key'),
          contentType: str(),
          bytes: int(),
          expiresAt: time(),
          expired: { type: 'boolean', description: 'Past jobs.resultTtlHours: the result answers 410' },
        },
        ['url', 'contentType', 'bytes', 'expiresAt', 'expired'],
        { description: 'Present once the job succeeded' },
      ),
      webhookUrl: url(),
    },
    ['id', 'kind', 'status', 'createdAt', 'attempts'],
  ),

  RenderJson: obj(
    {
      contentType: str(),
      bytes: int(),
      data: { type: 'string', contentEncoding: 'base64', description: 'The output, base64' },
      meta: obj({
        filename: str(),
        renderMs: int(),
        finalUrl: url('Where a url source ended after redirects'),
        pageCount: int('PDF only'),
        truncated: { type: 'boolean', description: 'A size cap cut the image (X-Truncated says which way)' },
      }),
    },
    ['contentType', 'bytes', 'data', 'meta'],
    { description: 'A synchronous render with "response": "json"' },
  ),

  ...CAPTURE_SCHEMAS,

  RunAccepted: obj(
    {
      monitorId: str(),
      status: { type: 'string', enum: [...JOB_STATUSES] },
      reason: { type: 'string', enum: ['manual', 'schedule', 'catch-up'] },
      queuedAt: time(),
      alreadyPending: { type: 'boolean', description: 'A capture was already queued or running: this is that one' },
    },
    ['monitorId', 'status', 'reason', 'queuedAt', 'alreadyPending'],
  ),

  Delivery: obj(
    {
      id: str(),
      eventType: { type: 'string', enum: [...EVENT_TYPES] },
      url: url(),
      status: { type: 'string', enum: [...DELIVERY_STATUSES] },
      attempts: int(),
      lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
      lastResponseStatus: { type: ['integer', 'null'] },
      lastError: { type: ['string', 'null'] },
      nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
      webhookId: str('The webhook-id header: the same on every attempt'),
      jobId: str(),
      monitorId: str(),
      createdAt: time(),
    },
    ['id', 'eventType', 'url', 'status', 'attempts', 'webhookId', 'createdAt'],
  ),

  DeliveryDetail: {
    allOf: [
      ref('Delivery'),
      obj(
        {
          history: {
            type: 'array',
            description: 'Every attempt, oldest first',
            items: obj({
              attempt: int(),
              at: time(),
              durationMs: int(),
              responseStatus: { type: ['integer', 'null'] },
              error: { type: ['string', 'null'] },
            }),
          },
        },
        ['history'],
      ),
    ],
  },

  Status: obj(
    {
      status: { type: 'string', enum: ['ok', 'degraded'] },
      version: str(),
      startedAt: time(),
      uptimeSeconds: int(),
      browser: obj({
        up: { type: 'boolean' },
        version: { type: ['string', 'null'] },
        renders: int(),
        restarts: int(),
        warmPages: int(),
        pagesCreated: int(),
        pagesUnloaded: int(),
      }),
      render: obj({ active: int(), queued: int(), concurrency: int(), queueSize: int() }),
      jobs: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Jobs by status' },
      monitors: {
        type: 'object',
        description: 'Counts (active, paused, failing: not paused and its last run failed) and the next runs',
      },
      webhooks: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Deliveries by status' },
      node: obj({ id: str(), role: { enum: ['all', 'api', 'worker'] } }, ['id', 'role'], {
        description: 'The node that answered',
      }),
      cluster: obj(
        {
          nodes: {
            type: 'array',
            description: 'Every node over this database, oldest start first',
            items: obj(
              {
                id: str(),
                role: { enum: ['all', 'api', 'worker'] },
                host: str(),
                version: str(),
                startedAt: time(),
                heartbeatAt: time(),
                alive: { type: 'boolean', description: 'Its heartbeat (every 5 s) is at most 15 s old' },
              },
              ['id', 'role', 'host', 'version', 'startedAt', 'heartbeatAt', 'alive'],
            ),
          },
        },
        ['nodes'],
      ),
      time: time(),
      ...STATUS_ADDITIONS,
    },
    ['status', 'version', 'browser', 'render'],
    { description: 'Aggregate figures, and the nodes of the cluster; no job or key ids, URLs or keys' },
  ),

  Health: obj({ status: { const: 'ok' } }, ['status']),
  Ready: obj(
    {
      status: { const: 'ready' },
      checks: obj({ database: { const: 'ok' }, browser: { const: 'ok' } }),
      sandbox: { enum: ['on', 'off'], description: 'Whether Chromium runs with its sandbox (render.sandbox)' },
      warnings: {
        type: 'array',
        items: { type: 'string' },
        description: 'Present when the sandbox is off because the service runs as root',
      },
    },
    ['status', 'checks', 'sandbox'],
  ),
};

/** A page of a list: newest first; pass nextCursor back as `cursor` for the next page. */
export const listOf = (item: string): JsonSchema =>
  obj(
    {
      items: { type: 'array', items: ref(item) },
      nextCursor: { type: ['string', 'null'], description: 'null on the last page' },
    },
    ['items', 'nextCursor'],
  );

const header = (description: string, schema: JsonSchema = str()): JsonSchema => ({ description, schema });

export const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': header('Echoed from the request if sent, else generated; also in error bodies'),
  'RateLimit-Limit': header('Requests per minute for this key (or anonymous IP)', int()),
  'RateLimit-Remaining': header('Requests left in the budget now', int()),
  'RateLimit-Reset': header('Seconds until the budget is full again', int()),
  'Retry-After': header('Seconds to wait before trying again', int()),
  Location: header('Where the created resource (or job) is'),
  'Content-Disposition': header('inline; filename="…" (the request\'s filename, or a default)'),
  'X-Render-Ms': header('Time spent rendering, ms', int()),
  'X-Final-Url': header('url sources: the address after redirects'),
  'X-Page-Count': header('PDF: number of pages', int()),
  'X-Truncated': header('"full-page" when the full-page height cap applied'),
};
