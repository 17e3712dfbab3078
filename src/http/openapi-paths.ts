// The route table of GET /openapi.json: every path the service answers, with its operations, built from
// the configuration so the limits it states (body sizes, queue sizes, TTLs) are the ones enforced.
// The render routes are here; the resource routes are in openapi-paths-api.ts, the operations and page
// routes in openapi-paths-site.ts. The component schemas it refers to by name are built in openapi.ts.
import { anonymousBodyLimit, type Config } from '../config.js';
import { binary, errors, hdr, json, operation, ref } from './openapi-operations.js';
import { buildResourcePaths } from './openapi-paths-api.js';
import { buildSitePaths } from './openapi-paths-site.js';

/** The document's `paths`: path → its operations. */
export function buildPaths(config: Readonly<Config>): Record<string, Record<string, unknown>> {
  const anonymous = config.auth.anonymous;
  const anonBody = anonymousBodyLimit(config.limits);
  const renderBody = (schemaName: string) => ({
    required: true,
    description:
      'JSON with every option, or (the raw-HTML shortcut) an HTML document as text/html: ' +
      'the same as {"html": <body>} with every default. ' +
      `At most ${config.limits.maxBodyBytes} bytes${anonymous ? ` (${anonBody} without a key)` : ''}.`,
    content: {
      'application/json': { schema: ref(schemaName) },
      'text/html': { schema: { type: 'string', description: 'The HTML to render' } },
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
      'unavailable',
      'render_timeout',
    ],
    {
      unauthorized: anonymous
        ? 'a key was sent but is unknown or revoked, or "async" without a key'
        : 'missing, unknown or revoked API key',
      conflict: 'the Idempotency-Key was used with a different request',
      payload_too_large:
        `the body is over ${config.limits.maxBodyBytes} bytes` + `${anonymous ? ` (${anonBody} without a key)` : ''}`,
      unsupported_media_type: 'the body is neither application/json nor text/html',
      render_failed:
        'navigation error, main document status >= 400 with failOnHttpError, waitForSelector never matched, ' +
        'selector not found',
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
          headers: hdr('Content-Disposition', 'X-Render-Ms', 'X-Final-Url', ...extraHeaders),
          content: { ...binary(...types), ...json({ anyOf: [ref('RenderJson'), ref('Job')] }) },
        },
        202: { description: 'Async: the job was queued', headers: hdr('Location'), content: json(ref('Job')) },
        ...renderErrors,
      },
    });

  const paths: Record<string, Record<string, unknown>> = {
    '/api/pdf': {
      post: renderOp('renderPdf', 'PdfRequest', 'Render a page to PDF', ['application/pdf'], ['X-Page-Count']),
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
    ...buildResourcePaths(config),
    ...buildSitePaths(config),
  };

  return paths;
}
