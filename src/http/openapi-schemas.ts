// The parts of the OpenAPI document no zod schema describes: the shapes of JSON answers that are built
// by view functions (jobs, captures, deliveries, status), the shared error body and the headers.
// Kept small on purpose: the request schemas, where the detail matters, are generated.
import { JOB_STATUSES } from '../stores/jobs.js';
import { DELIVERY_STATUSES } from '../stores/webhook-deliveries.js';
import { ERROR_CODES } from '../errors.js';
import { ref } from './openapi-operations.js';

export type JsonSchema = Record<string, unknown>;

const str = (description?: string): JsonSchema => ({ type: 'string', ...(description && { description }) });
const time = (description?: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  ...(description && { description }),
});
const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description && { description }) });
const url = (description?: string): JsonSchema => ({
  type: 'string',
  format: 'uri',
  ...(description && { description }),
});
const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length && { required }),
  ...extra,
});

const box = obj({ x: int(), y: int(), width: int(), height: int() }, ['x', 'y', 'width', 'height']);
const codeAndMessage = obj({ code: str(), message: str() }, ['code', 'message']);
const nullableStr = (description?: string): JsonSchema => ({
  type: ['string', 'null'],
  ...(description && { description }),
});

const region: JsonSchema = obj(
  {
    x: int(),
    y: int(),
    width: int(),
    height: int(),
    pixels: int('Changed pixels counted in it'),
    elements: {
      type: 'array',
      description: 'Up to 5 elements the region overlaps, the largest overlap first',
      items: obj(
        {
          selector: str('A short CSS selector, unique on the page when captured'),
          tag: str(),
          before: nullableStr('Its text in the baseline; null when absent there'),
          after: nullableStr('Its text now; null when gone'),
        },
        ['selector', 'tag', 'before', 'after'],
      ),
    },
  },
  ['x', 'y', 'width', 'height'],
);

const textChange: JsonSchema = obj(
  {
    kind: { type: 'string', enum: ['added', 'removed', 'changed'] },
    before: nullableStr(),
    after: nullableStr(),
    box: {
      anyOf: [box, { type: 'null' }],
      description: 'Where the block is now (in the baseline for a removed one), image pixels',
    },
    selector: nullableStr(),
    words: {
      type: 'array',
      description: 'Changed blocks: the word-level diff, in order',
      items: obj({ value: str(), added: { type: 'boolean' }, removed: { type: 'boolean' } }, ['value']),
    },
  },
  ['kind', 'before', 'after', 'box', 'selector'],
);

/** The fields a succeeded capture (and its events) carries about text and notifyWhen. */
const textAndConditions: Record<string, JsonSchema> = {
  textChanges: {
    type: 'array',
    items: textChange,
    description: 'Text blocks added, removed or changed since the baseline, in reading order, at most 50',
  },
  textChangesTotal: int('All text changes found, including those past the 50 kept'),
  conditions: {
    type: 'array',
    description: 'Each notifyWhen rule as this capture found it',
    items: obj(
      {
        index: int(),
        selector: str(),
        test: str("The rule's test: textContains, numberBelow, ..."),
        met: { type: 'boolean' },
        value: {
          type: ['string', 'number', 'null'],
          description: 'The text read or the number parsed; null when nothing matched',
        },
      },
      ['index', 'selector', 'test', 'met', 'value'],
    ),
  },
  conditionErrors: {
    type: 'array',
    items: str(),
    description: 'Why a rule could not be read (e.g. its selector matched nothing)',
  },
  conditionsMet: {
    type: ['boolean', 'null'],
    description: 'Every rule true and one newly so; null without rules. monitor.changed is sent only when not false',
  },
};

export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = {
  Error: obj(
    {
      error: obj(
        {
          code: { type: 'string', enum: [...ERROR_CODES] },
          message: str('For a person; the code is what a program should look at'),
          details: {
            type: 'array',
            description: 'One entry per problem (400 invalid_request: one per bad field)',
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

  Capture: obj(
    {
      id: str(),
      monitorId: str(),
      status: { type: 'string', enum: ['succeeded', 'failed'] },
      reason: { type: 'string', enum: ['schedule', 'manual', 'catch-up'] },
      takenAt: time(),
      durationMs: int(),
      width: { type: ['integer', 'null'] },
      height: { type: ['integer', 'null'] },
      changed: { type: 'boolean', description: 'false for a baseline' },
      confirmed: { type: 'boolean', description: 'A change seen again by the confirming capture' },
      diffPixels: int('Counted pixels of the reported regions (0 exactly when regions is empty)'),
      diffRatio: { type: 'number', description: 'diffPixels / compared pixels (ignored pixels excluded)' },
      regions: { type: 'array', items: region, description: 'Changed areas that count, image pixels, at most 10' },
      baselineId: { type: ['string', 'null'], description: 'The capture compared with; null for a new baseline' },
      imageUrl: url('PNG; needs the key'),
      diffUrl: url('PNG with the counted changes in red and each region outlined; only when there is a region'),
      truncated: { type: 'boolean' },
      error: codeAndMessage,
      summary: {
        type: ['string', 'null'],
        description: 'One line for a person about the text changes, e.g. "Price: $24.99 → $19.99"; null without one',
      },
      ...textAndConditions,
    },
    ['id', 'monitorId', 'status', 'reason', 'takenAt'],
  ),

  CaptureEvent: obj(
    {
      monitorId: str(),
      captureId: str(),
      url: url('The monitored page'),
      status: { type: 'string', enum: ['succeeded', 'failed'] },
      reason: { type: 'string', enum: ['schedule', 'manual', 'catch-up'] },
      takenAt: time(),
      changed: { type: 'boolean' },
      baselineId: { type: ['string', 'null'] },
      diffPixels: int(),
      diffRatio: { type: 'number' },
      regions: { type: 'array', items: region },
      summary: {
        type: ['string', 'null'],
        description: 'One line for a person, e.g. "Price: $24.99 → $19.99"; null without a text change',
      },
      ...textAndConditions,
      textChanges: {
        type: 'array',
        items: textChange,
        description: 'The first 10 text changes (the capture keeps up to 50)',
      },
      imageUrl: url(),
      diffUrl: url(),
      baselineImageUrl: url(),
      error: codeAndMessage,
    },
    ['monitorId', 'captureId', 'url', 'status', 'reason', 'takenAt'],
    {
      description:
        '`data` of monitor.changed, capture.completed and capture.failed (a failed capture carries error ' +
        'instead of the figures)',
    },
  ),

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
      eventType: {
        type: 'string',
        enum: ['job.succeeded', 'job.failed', 'monitor.changed', 'capture.completed', 'capture.failed'],
      },
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
      }),
      render: obj({ active: int(), queued: int(), concurrency: int(), queueSize: int() }),
      jobs: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Jobs by status' },
      monitors: { type: 'object', description: 'Counts and the next runs' },
      webhooks: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Deliveries by status' },
      time: time(),
    },
    ['status', 'version', 'browser', 'render'],
    { description: 'Aggregate figures only: no ids, URLs or keys' },
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
