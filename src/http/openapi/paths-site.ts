// The operations and page routes of GET /openapi.json: status, health, readiness, metrics, this document,
// the HTML pages, the docs files and the assets: what an operator or a browser asks for, beside the
// client API of paths-api.ts.
import type { Config } from '../../config.js';
import { errors, json, one, operation, PAGE_ERRORS, type JsonSchema } from './operations.js';

/** The `paths` outside the render and resource API: operations, pages, docs files and assets. */
export function buildSitePaths(config: Readonly<Config>): Record<string, Record<string, unknown>> {
  // /api/status and /metrics: open (a key that is sent is checked) or keyed, as auth.publicOperations says.
  const operationsAccess = config.auth.publicOperations ? 'anonymous' : 'key';
  const operationsUnauthorized = config.auth.publicOperations
    ? 'a key was sent but is unknown or revoked'
    : 'no key, or an unknown or revoked one';

  const page = (id: string, summary: string) => ({
    get: operation({
      id,
      summary,
      tag: 'Pages',
      access: 'public',
      responses: {
        200: {
          description: 'An HTML page (strict Content-Security-Policy, no inline script)',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        ...errors(PAGE_ERRORS),
      },
    }),
  });

  // The reference files of docs/ that /docs links, served as they are (src/web/docs-files.ts).
  const docsFile = (id: string, summary: string, pattern: string, type: string) => ({
    get: operation({
      id,
      summary,
      tag: 'Pages',
      access: 'public',
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', pattern } }],
      responses: {
        200: {
          description: 'The file, as it is in the repository',
          content: { [type]: { schema: { type: 'string' } } },
        },
        ...errors(['not_found', ...PAGE_ERRORS], { not_found: 'no such file' }),
      },
    }),
  });

  return {
    '/api/status': {
      get: operation({
        id: 'getStatus',
        summary: "The service's figures (what /status shows)",
        tag: 'Operations',
        access: operationsAccess,
        description:
          operationsAccess === 'anonymous'
            ? 'Public: no key needed (a key that is sent must be valid).'
            : 'Needs an API key (auth.publicOperations is false here).',
        responses: {
          200: one('Status', 'Aggregate figures'),
          ...errors(['unauthorized', 'rate_limited', ...PAGE_ERRORS], { unauthorized: operationsUnauthorized }),
        },
      }),
    },
    '/health': {
      get: operation({
        id: 'health',
        summary: 'Liveness: 200 while the process runs',
        tag: 'Operations',
        access: 'public',
        responses: { 200: one('Health', 'Running'), ...errors(['internal']) },
      }),
    },
    '/ready': {
      get: operation({
        id: 'ready',
        summary: 'Readiness: the database and the browser are usable, and the disk has room',
        tag: 'Operations',
        access: 'public',
        responses: {
          200: one('Ready', 'Ready'),
          ...errors(['internal', 'unavailable'], {
            unavailable:
              "not ready (details name the failing checks and, when Chromium's sandbox cannot start, why and " +
              'the fix; storage: the free space of dataDir is under storage.minFreeBytes) or shutting down',
          }),
        },
      }),
    },
    '/metrics': {
      get: operation({
        id: 'metrics',
        summary: 'Prometheus metrics',
        tag: 'Operations',
        access: operationsAccess,
        description:
          operationsAccess === 'anonymous'
            ? 'Public: no key needed (a key that is sent must be valid).'
            : 'Needs an API key (auth.publicOperations is false here): ' +
              'Prometheus sends it with `authorization: {credentials: <key>}`.',
        responses: {
          200: {
            description: 'Prometheus text exposition format',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errors(['unauthorized', 'rate_limited', ...PAGE_ERRORS], { unauthorized: operationsUnauthorized }),
        },
      }),
    },
    '/openapi.json': {
      get: operation({
        id: 'openapi',
        summary: 'This document',
        tag: 'Operations',
        access: 'public',
        responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) }, ...errors(PAGE_ERRORS) },
      }),
    },

    '/': page('converterPage', 'The converter: URL or HTML in, PDF or image out'),
    '/monitors': page('monitorsPage', 'The monitor dashboard'),
    '/status': page('statusPage', 'The status page'),
    '/docs': page('docsPage', 'The documentation'),
    '/docs/{file}': docsFile(
      'docsFile',
      'A reference file, as Markdown text',
      '^[a-z0-9][a-z0-9-]*\\.md$',
      'text/markdown',
    ),
    '/docs/images/{file}': docsFile(
      'docsImage',
      'An image a reference file shows',
      '^[a-z0-9][a-z0-9-]*\\.png$',
      'image/png',
    ),
    '/assets/{file}': asset('asset', 'A stylesheet, script or image of the pages', []),
    '/assets/{folder}/{file}': asset('assetInFolder', 'A script of a dashboard component, or a vendored library', [
      {
        name: 'folder',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
      },
    ]),
  };
}

/** A static file of the pages: only names read from the static folder at startup are served. */
function asset(id: string, summary: string, folder: JsonSchema[]) {
  return {
    get: operation({
      id,
      summary,
      tag: 'Pages',
      access: 'public',
      parameters: [
        ...folder,
        {
          name: 'file',
          in: 'path',
          required: true,
          schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*\\.(css|js|svg)$' },
        },
      ],
      responses: {
        200: {
          description: 'The file',
          content: {
            'text/css': { schema: { type: 'string' } },
            'text/javascript': { schema: { type: 'string' } },
            'image/svg+xml': { schema: { type: 'string' } },
          },
        },
        ...errors(['not_found', ...PAGE_ERRORS], { not_found: 'no such asset' }),
      },
    }),
  };
}
