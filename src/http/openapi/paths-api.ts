// The /api/ routes of GET /openapi.json: the renders, the async jobs, the monitors with their captures, and
// the webhook delivery log, built from the configuration so the limits they state (body sizes, queue
// sizes, TTLs) are the ones enforced.
import { anonymousBodyLimit, anonymousUploadLimits, type Config } from '../../config.js';
import type { ErrorCode } from '../../errors.js';
import {
  API_ERRORS,
  binary,
  errors,
  hdr,
  idParam,
  json,
  one,
  operation,
  queryParameters,
  ref,
  toJsonSchema,
  type JsonSchema,
} from './operations.js';
import { deliveryListQuery, jobListQuery, pagingQuery } from '../schemas/lists.js';
import { monitorListQuery } from '../schemas/monitor-bulk.js';
import { exportQuery, importQuery, importResultSchema, monitorExportSchema } from '../schemas/monitor-transfer.js';
import { PDF_TOOLS, type PdfTool } from '../../jobs/pdf-work.js';
import { PDF_TOOL_RULES } from '../schemas/pdf-tools.js';
import { httpLimits } from '../limits.js';
import { pdfToolSchemaName } from './components.js';

/** The `paths` of the renders, the async jobs, the monitors and their captures, and the webhook deliveries. */
export function buildApiPaths(config: Readonly<Config>): Record<string, Record<string, unknown>> {
  const anonymous = config.auth.anonymous;
  const anonBody = anonymousBodyLimit(config.limits);
  const anonUpload = anonymousUploadLimits(config.limits);
  const uploadLimits =
    `At most ${config.limits.uploadMaxBytes} bytes${anonymous ? ` (${anonUpload.maxBytes} without a key)` : ''}, ` +
    `${config.limits.uploadMaxFiles} files${anonymous ? ` (${anonUpload.maxFiles} without a key)` : ''}, ` +
    `${config.limits.uploadMaxFileBytes} bytes a file.`;
  const renderBody = (schemaName: string) => ({
    required: true,
    description:
      'JSON with every option, or (the raw-HTML shortcut) an HTML document as text/html: ' +
      'the same as {"html": <body>} with every default. ' +
      `At most ${config.limits.maxBodyBytes} bytes${anonymous ? ` (${anonBody} without a key)` : ''}. ` +
      'Or an upload as multipart/form-data: index.html and its assets as file parts, each named by its ' +
      'path (filename="css/site.css"), and the options (all but html, url and baseUrl) as one `options` ' +
      `JSON part or as fields of their own names. ${uploadLimits}`,
    content: {
      'application/json': { schema: ref(schemaName) },
      'text/html': { schema: { type: 'string', description: 'The HTML to render' } },
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['files'],
          properties: {
            files: {
              type: 'array',
              items: { type: 'string', format: 'binary' },
              description:
                "index.html and its assets; each part's filename is its relative path. Markdown files (.md) " +
                'go into index.html at its {{ toHTML "name.md" }} markers, or make the page without one. Names with ' +
                '"..", a leading "/", a backslash, an empty folder, a control character, "%", "?" or "#" are refused.',
            },
            options: {
              type: 'string',
              contentMediaType: 'application/json',
              description: `The options as one JSON object, as in ${schemaName} (without html, url, baseUrl)`,
            },
          },
          additionalProperties: {
            type: 'string',
            description: 'An option as a field of its own name: parsed as JSON where it parses, else a string',
          },
        },
      },
    },
  });
  const idempotencyKey = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Async only: the same key and request within 24 h answers 200 with the same job; another request under it 409',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  };
  const renderErrors = errors(
    [
      'invalid_request',
      'unauthorized',
      'url_blocked',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'render_failed',
      'rate_limited',
      'queue_full',
      'internal',
      'render_crashed',
      'unavailable',
      'render_timeout',
      'insufficient_storage',
    ],
    {
      unauthorized: anonymous
        ? 'a key was sent but is unknown or revoked, or "async" without a key'
        : 'missing, unknown or revoked API key',
      conflict: 'the Idempotency-Key was used with a different request',
      payload_too_large:
        `the body is over ${config.limits.maxBodyBytes} bytes` +
        `${anonymous ? ` (${anonBody} without a key)` : ''}; an upload over its limits (${uploadLimits.replace(/\.$/, '')})`,
      unsupported_media_type: 'the body is neither application/json, text/html nor multipart/form-data',
      render_failed:
        'navigation error, main document status >= 400 with failOnHttpError (or one in failOnHttpStatusCodes), ' +
        'a failure rule broken (failOnResourceHttpStatusCodes, failOnResourceLoadingFailed, ' +
        'failOnConsoleExceptions; details list what broke it), waitForSelector never matched, selector not found',
      queue_full:
        `more than render.queueSize (${config.render.queueSize}) renders waiting, or jobs.maxQueuedPerKey ` +
        `(${config.jobs.maxQueuedPerKey}) async jobs`,
    },
  );
  const renderOp = (id: string, schemaName: string, summary: string, types: string[], extraHeaders: string[]) =>
    operation({
      id,
      summary,
      tag: 'Rendering',
      access: anonymous ? 'anonymous' : 'key',
      description: (
        'Synchronous by default: the answer is the output. ' +
        'With "async": true (API key required) the answer is 202 with a job. ' +
        `${
          anonymous
            ? `Without a key: synchronous only, bodies up to ${anonBody} bytes, ` +
              `${config.rateLimit.anonymousPerMinute} requests a minute per IP.`
            : ''
        }`
      ).trim(),
      parameters: [idempotencyKey],
      requestBody: renderBody(schemaName),
      responses: {
        200: {
          description:
            'The output (or, with "response": "json", JSON with base64 data; for a repeated Idempotency-Key, ' +
            'the earlier job)',
          headers: hdr(
            'Content-Disposition',
            'X-Render-Ms',
            'X-Final-Url',
            'X-Render-Failed-Resources',
            'X-Render-Console-Errors',
            'X-Render-Exceptions',
            'X-Render-Missing-Glyphs',
            ...extraHeaders,
          ),
          content: { ...binary(...types), ...json({ anyOf: [ref('RenderJson'), ref('Job')] }) },
        },
        202: { description: 'Async: the job was queued', headers: hdr('Location'), content: json(ref('Job')) },
        ...renderErrors,
      },
    });

  const keyed = (codes: ErrorCode[], why?: Partial<Record<ErrorCode, string>>) =>
    errors([...codes, ...API_ERRORS], why);

  const pdfMaxFiles = httpLimits(config).pdfMaxFiles;
  const toolOp = (tool: PdfTool) => {
    const name = pdfToolSchemaName(tool);
    const rule = PDF_TOOL_RULES[tool];
    const types = tool === 'split' ? ['application/zip'] : ['application/pdf'];
    return operation({
      id: `pdf${name.slice(3, -'Request'.length)}`,
      summary: rule.summary,
      tag: 'PDF tools',
      access: 'key',
      description:
        'The input PDFs as JSON (`files`, base64, at most the JSON body limit of ' +
        `${config.limits.maxBodyBytes} bytes) or as the file parts of multipart/form-data ` +
        `(${config.limits.uploadMaxBytes} bytes in all, ${config.limits.uploadMaxFileBytes} a file); ` +
        `${rule.maxFiles === 1 ? 'one PDF' : `${rule.minFiles} to ${pdfMaxFiles} PDFs (pdf.maxFiles), joined in order`}. ` +
        'With "async": true the answer is 202 with a job.',
      parameters: [idempotencyKey],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: ref(name) },
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['files'],
              properties: {
                files: {
                  type: 'array',
                  items: { type: 'string', format: 'binary' },
                  description:
                    'The input PDFs in order, and the files the options name by part name (embeds[].file, ' +
                    'facturx.file, watermark.image.file, stamp.image.file): those are not inputs',
                },
                options: {
                  type: 'string',
                  contentMediaType: 'application/json',
                  description: `The options as one JSON object, as in ${name} (without files; passwords by part name)`,
                },
              },
              additionalProperties: { type: 'string', description: 'An option as a field of its own name' },
            },
          },
        },
      },
      responses: {
        200: {
          description:
            tool === 'metadata'
              ? 'Without a metadata option: the metadata read (JSON); with it: the PDF; or the earlier job'
              : 'The PDF (a zip of PDFs for a split), or for a repeated Idempotency-Key the earlier job',
          headers: hdr('Content-Disposition', 'X-Render-Ms', 'X-Page-Count', 'X-Part-Count'),
          content: {
            ...binary(...types),
            ...json(tool === 'metadata' ? { anyOf: [ref('PdfMetadataRead'), ref('Job')] } : ref('Job')),
          },
        },
        202: { description: 'Async: the job was queued', headers: hdr('Location'), content: json(ref('Job')) },
        ...keyed(
          [
            'invalid_request',
            'invalid_pdf',
            'conflict',
            'payload_too_large',
            'unsupported_media_type',
            'render_failed',
            'render_timeout',
            'queue_full',
            'insufficient_storage',
          ],
          {
            invalid_pdf: 'an input is not a PDF that can be read safely, or its password is wrong',
            conflict: 'the Idempotency-Key was used with a different request',
          },
        ),
      },
    });
  };
  const list = (item: string) => ({ description: 'A page, newest first', content: json(ref(`${item}List`)) });
  const jsonBody = (schema: JsonSchema) => ({ required: true, content: { 'application/json': { schema } } });
  const bodyErrors: ErrorCode[] = ['invalid_request', 'payload_too_large', 'unsupported_media_type'];

  return {
    '/api/pdf': {
      post: renderOp(
        'renderPdf',
        'PdfRequest',
        'Render a page to PDF (finished with the PDF options given; a zip of parts with split)',
        ['application/pdf', 'application/zip'],
        ['X-Page-Count', 'X-Part-Count'],
      ),
    },
    '/api/image': {
      post: renderOp(
        'renderImage',
        'ImageRequest',
        'Render a page to an image',
        ['image/png', 'image/jpeg', 'image/webp'],
        ['X-Truncated'],
      ),
    },

    ...Object.fromEntries(PDF_TOOLS.map((tool) => [`/api/pdf/${tool}`, { post: toolOp(tool) }])),

    '/api/jobs': {
      get: operation({
        id: 'listJobs',
        summary: "List the key's async jobs",
        tag: 'Jobs',
        access: 'key',
        parameters: queryParameters(jobListQuery),
        responses: { 200: list('Job'), ...keyed(['invalid_request']) },
      }),
    },
    '/api/jobs/{id}': {
      parameters: [idParam('job')],
      get: operation({
        id: 'getJob',
        summary: 'Get a job',
        tag: 'Jobs',
        access: 'key',
        responses: { 200: one('Job', 'The job'), ...keyed(['not_found']) },
      }),
      delete: operation({
        id: 'cancelJob',
        summary: 'Cancel a queued or running job',
        tag: 'Jobs',
        access: 'key',
        responses: {
          200: one('Job', 'The canceled job'),
          ...keyed(['not_found', 'conflict'], { conflict: 'the job has already finished' }),
        },
      }),
    },
    '/api/jobs/{id}/result': {
      parameters: [idParam('job')],
      get: operation({
        id: 'getJobResult',
        summary: "Download a job's result",
        tag: 'Jobs',
        access: 'key',
        description: `Kept for jobs.resultTtlHours (${config.jobs.resultTtlHours} h), then 410.`,
        responses: {
          200: {
            description: 'The output',
            headers: hdr('Content-Disposition'),
            content: binary('application/pdf', 'image/png', 'image/jpeg', 'image/webp'),
          },
          ...keyed(['not_found', 'gone'], { not_found: 'unknown job, or it has not succeeded' }),
        },
      }),
    },

    '/api/monitors': {
      post: operation({
        id: 'createMonitor',
        summary: 'Create a monitor',
        tag: 'Monitors',
        access: 'key',
        requestBody: jsonBody(ref('MonitorCreate')),
        responses: {
          201: { description: 'Created', headers: hdr('Location'), content: json(ref('Monitor')) },
          ...keyed([...bodyErrors, 'url_blocked', 'conflict', 'insufficient_storage'], {
            conflict: `the key already has monitors.maxPerKey (${config.monitors.maxPerKey}) monitors`,
          }),
        },
      }),
      get: operation({
        id: 'listMonitors',
        summary: "List the key's monitors",
        tag: 'Monitors',
        access: 'key',
        parameters: queryParameters(monitorListQuery),
        responses: { 200: list('Monitor'), ...keyed(['invalid_request']) },
      }),
    },
    '/api/monitors/bulk': {
      post: operation({
        id: 'bulkMonitors',
        summary: 'Pause, resume, run or delete every monitor of a tag (or listed ids)',
        tag: 'Monitors',
        access: 'key',
        description:
          'Each monitor goes through the same path as its own route (a pause is a PATCH {paused: true}, run obeys ' +
          'the same limits); one that fails is listed in `failed` with its error, and the others go on.',
        requestBody: jsonBody(ref('MonitorBulk')),
        responses: { 200: one('BulkResult', 'What was done, and to which monitors'), ...keyed(bodyErrors) },
      }),
    },
    '/api/tags': {
      get: operation({
        id: 'listTags',
        summary: "The key's monitor tags, with how many monitors carry each",
        tag: 'Monitors',
        access: 'key',
        responses: { 200: one('TagList', 'Sorted by tag; tags compared without case'), ...keyed([]) },
      }),
    },
    '/api/monitors/export': {
      get: operation({
        id: 'exportMonitors',
        summary: "Export the key's monitors as JSON",
        tag: 'Monitors',
        access: 'key',
        description:
          'Every monitor of the key as the body POST /api/monitors accepts (settings only: no ids, status or ' +
          'channel ids), oldest first. Secrets are left out and listed per monitor in secretsOmitted. The file ' +
          'can be sent as is to POST /api/monitors/import.',
        parameters: queryParameters(exportQuery),
        responses: {
          200: { description: 'The export file', content: json(toJsonSchema(monitorExportSchema, 'output')) },
          ...keyed(['invalid_request']),
        },
      }),
    },
    '/api/monitors/import': {
      post: operation({
        id: 'importMonitors',
        summary: 'Import monitors: a Pagewatch export, a changedetection.io backup or urlwatch urls.yaml',
        tag: 'Monitors',
        access: 'key',
        description:
          'The format is read from the Content-Type and the content: application/json (a Pagewatch export, or ' +
          "changedetection.io's url-watches.json), application/zip (a changedetection.io backup), " +
          "application/yaml or text/yaml (urlwatch's urls.yaml). At most 5 MiB. Each entry is validated and " +
          'created as by POST /api/monitors; a bad entry, or one past monitors.maxPerKey, is skipped with its ' +
          'reason. With dryRun=true nothing is created.',
        parameters: queryParameters(importQuery),
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: toJsonSchema(monitorExportSchema, 'output') },
            'application/zip': { schema: { type: 'string', format: 'binary' } },
            'application/yaml': { schema: { type: 'string' } },
            'text/yaml': { schema: { type: 'string' } },
          },
        },
        responses: {
          200: {
            description: 'What was imported, skipped and not mapped',
            content: json(toJsonSchema(importResultSchema, 'output')),
          },
          ...keyed(['invalid_request', 'payload_too_large', 'unsupported_media_type']),
        },
      }),
    },
    '/api/monitors/{id}': {
      parameters: [idParam('monitor')],
      get: operation({
        id: 'getMonitor',
        summary: 'Get a monitor',
        tag: 'Monitors',
        access: 'key',
        responses: { 200: one('Monitor', 'The monitor'), ...keyed(['not_found']) },
      }),
      patch: operation({
        id: 'updateMonitor',
        summary: 'Change a monitor (JSON Merge Patch)',
        tag: 'Monitors',
        access: 'key',
        requestBody: jsonBody(ref('MonitorPatch')),
        responses: {
          200: one('Monitor', 'The changed monitor'),
          ...keyed([...bodyErrors, 'url_blocked', 'not_found']),
        },
      }),
      delete: operation({
        id: 'deleteMonitor',
        summary: 'Delete a monitor with its captures and files',
        tag: 'Monitors',
        access: 'key',
        responses: { 204: { description: 'Deleted' }, ...keyed(['not_found']) },
      }),
    },
    '/api/monitors/{id}/run': {
      parameters: [idParam('monitor')],
      post: operation({
        id: 'runMonitor',
        summary: 'Capture now',
        tag: 'Monitors',
        access: 'key',
        description: 'Queues a capture (also for a paused monitor). While one is pending, answers that one.',
        responses: {
          202: { description: 'Queued', headers: hdr('Location'), content: json(ref('RunAccepted')) },
          ...keyed(['not_found', 'insufficient_storage']),
        },
      }),
    },
    '/api/monitors/{id}/login': {
      parameters: [idParam('monitor')],
      delete: operation({
        id: 'forgetMonitorLogin',
        summary: "Forget the monitor's saved login",
        tag: 'Monitors',
        access: 'key',
        description:
          'Removes the browser state kept by capture.saveLogin: the next capture runs the steps again (and, with ' +
          'saveLogin still on, saves what they leave). 204 also when none was kept.',
        responses: { 204: { description: 'Forgotten' }, ...keyed(['not_found']) },
      }),
    },
    '/api/monitors/{id}/test-webhook': {
      parameters: [idParam('monitor')],
      post: operation({
        id: 'testMonitorWebhook',
        summary: "Send a monitor.test event to the monitor's webhookUrl",
        tag: 'Webhooks',
        access: 'key',
        description:
          "Queued in the outbox like every event: signed with the key's secret, retried, checked by the egress " +
          'policy at send time, and listed in the delivery log. Works on paused monitors; takes no capture.',
        responses: {
          202: { description: 'Queued: the delivery', headers: hdr('Location'), content: json(ref('Delivery')) },
          ...keyed(['not_found', 'conflict'], { conflict: 'the monitor has no webhookUrl' }),
        },
      }),
    },
    '/api/monitors/{id}/captures': {
      parameters: [idParam('monitor')],
      get: operation({
        id: 'listCaptures',
        summary: "A monitor's captures",
        tag: 'Monitors',
        access: 'key',
        parameters: queryParameters(pagingQuery),
        responses: { 200: list('Capture'), ...keyed(['invalid_request', 'not_found']) },
      }),
    },
    '/api/captures/{id}': {
      parameters: [idParam('capture')],
      get: operation({
        id: 'getCapture',
        summary: 'Get a capture',
        tag: 'Monitors',
        access: 'key',
        responses: { 200: one('Capture', 'The capture'), ...keyed(['not_found']) },
      }),
    },
    '/api/captures/{id}/image': {
      parameters: [idParam('capture')],
      get: operation({
        id: 'getCaptureImage',
        summary: 'The captured image',
        tag: 'Monitors',
        access: 'key',
        responses: { 200: { description: 'PNG', content: binary('image/png') }, ...keyed(['not_found']) },
      }),
    },
    '/api/captures/{id}/text': {
      parameters: [idParam('capture')],
      get: operation({
        id: 'getCaptureText',
        summary: "The capture's text as compared",
        tag: 'Monitors',
        access: 'key',
        description:
          "The text blocks the capture kept, after the monitor's filters: what the next capture's text is " +
          'compared with. A failed capture, or one taken before text was kept, has none (404).',
        responses: {
          200: one('CaptureText', 'The text blocks'),
          ...keyed(['not_found'], { not_found: 'unknown capture, or it has no text' }),
        },
      }),
    },
    '/api/captures/{id}/diff': {
      parameters: [idParam('capture')],
      get: operation({
        id: 'getCaptureDiff',
        summary: 'The diff image: changed pixels in red',
        tag: 'Monitors',
        access: 'key',
        responses: {
          200: { description: 'PNG', content: binary('image/png') },
          ...keyed(['not_found'], { not_found: 'unknown capture, or no pixel differed' }),
        },
      }),
    },

    '/api/channels': {
      post: operation({
        id: 'createChannel',
        summary: 'Create a channel',
        tag: 'Channels',
        access: 'key',
        requestBody: jsonBody(ref('ChannelCreate')),
        responses: {
          201: { description: 'Created', headers: hdr('Location'), content: json(ref('Channel')) },
          ...keyed([...bodyErrors, 'conflict'], { conflict: 'the key already has 100 channels' }),
        },
      }),
      get: operation({
        id: 'listChannels',
        summary: "List the key's channels",
        tag: 'Channels',
        access: 'key',
        responses: {
          200: { description: 'Every channel of the key, newest first', content: json(ref('ChannelList')) },
          ...keyed([]),
        },
      }),
    },
    '/api/channels/{id}': {
      parameters: [idParam('channel')],
      get: operation({
        id: 'getChannel',
        summary: 'Get a channel',
        tag: 'Channels',
        access: 'key',
        responses: { 200: one('Channel', 'The channel'), ...keyed(['not_found']) },
      }),
      patch: operation({
        id: 'updateChannel',
        summary: 'Change a channel (JSON Merge Patch)',
        tag: 'Channels',
        access: 'key',
        requestBody: jsonBody(ref('ChannelPatch')),
        responses: { 200: one('Channel', 'The changed channel'), ...keyed([...bodyErrors, 'not_found']) },
      }),
      delete: operation({
        id: 'deleteChannel',
        summary: 'Delete a channel',
        tag: 'Channels',
        access: 'key',
        description: 'It is taken out of every monitor that lists it; its deliveries not yet sent fail.',
        responses: { 204: { description: 'Deleted' }, ...keyed(['not_found']) },
      }),
    },
    '/api/channels/{id}/test': {
      parameters: [idParam('channel')],
      post: operation({
        id: 'testChannel',
        summary: 'Send a channel.test message to the channel now',
        tag: 'Channels',
        access: 'key',
        description:
          'Queued in the outbox like every alert, due at once whatever the digest and quiet hours say: retried, ' +
          'checked by the egress policy at send time, and listed in the delivery log.',
        responses: {
          202: { description: 'Queued: the delivery', headers: hdr('Location'), content: json(ref('Delivery')) },
          ...keyed(['not_found']),
        },
      }),
    },

    '/api/webhook-deliveries': {
      get: operation({
        id: 'listDeliveries',
        summary: 'The webhook delivery log',
        tag: 'Webhooks',
        access: 'key',
        parameters: queryParameters(deliveryListQuery),
        responses: { 200: list('Delivery'), ...keyed(['invalid_request']) },
      }),
    },
    '/api/webhook-deliveries/{id}': {
      parameters: [idParam('delivery')],
      get: operation({
        id: 'getDelivery',
        summary: 'A delivery with every attempt',
        tag: 'Webhooks',
        access: 'key',
        responses: { 200: one('DeliveryDetail', 'The delivery and its history'), ...keyed(['not_found']) },
      }),
    },
    '/api/webhook-deliveries/{id}/redeliver': {
      parameters: [idParam('delivery')],
      post: operation({
        id: 'redeliver',
        summary: 'Send a delivery again now',
        tag: 'Webhooks',
        access: 'key',
        description: 'Works on pending, failed and succeeded deliveries; the retry schedule starts over.',
        responses: { 202: one('Delivery', 'Due now'), ...keyed(['not_found']) },
      }),
    },
  };
}
