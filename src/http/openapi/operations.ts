// The building blocks of the OpenAPI document's operations: zod → JSON Schema for requests, the shared
// error responses by code, the response headers, and one operation's shape with its security and headers.
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../../errors.js';

export type JsonSchema = Record<string, unknown>;

/**
 * zod → JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). Refinements are not representable and are left out.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  // A "#/$defs/..." reference would point into the OpenAPI document, not this schema: none may appear.
  if ('$defs' in out || JSON.stringify(out).includes('"$ref"'))
    throw new Error('a request schema needs $defs; lift them into components');
  return out;
}

export const propsOf = (schema: JsonSchema) => schema.properties as Record<string, JsonSchema>;

/** A zod query schema as OpenAPI query parameters: the description lifted out of each one's schema. */
export function queryParameters(schema: z.ZodType): JsonSchema[] {
  const json = toJsonSchema(schema);
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(propsOf(json)).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description !== undefined && { description }),
      schema: rest,
    };
  });
}

// --- responses ------------------------------------------------------------------------------------

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const header = (description: string, type = 'string'): JsonSchema => ({ description, schema: { type } });

export const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': header('Echoed from the request if sent, else generated; also in error bodies'),
  'RateLimit-Limit': header('Requests per minute for this key (or anonymous IP)', 'integer'),
  'RateLimit-Remaining': header('Requests left in the budget now', 'integer'),
  'RateLimit-Reset': header('Seconds until the budget is full again', 'integer'),
  'Retry-After': header('Seconds to wait before trying again', 'integer'),
  Location: header('Where the created resource (or job) is'),
  'Content-Disposition': header('inline; filename="…" (the request\'s filename, or a default)'),
  'X-Render-Ms': header('Time spent rendering, ms', 'integer'),
  'X-Final-Url': header('url sources: the address after redirects'),
  'X-Page-Count': header('PDF: number of pages (of the finished document; a split: of all its parts)', 'integer'),
  'X-Part-Count': header('split: the number of PDFs in the zip', 'integer'),
  'X-Truncated': header('"full-page" when the full-page height cap applied'),
  'X-Render-Failed-Resources': header(
    "Resources that answered >= 400 or failed without an answer (the diagnostics' failedResources)",
    'integer',
  ),
  'X-Render-Console-Errors': header("The page's console.error messages", 'integer'),
  'X-Render-Exceptions': header('Exceptions no script of the page caught', 'integer'),
  'X-Render-Missing-Glyphs': header('Characters no font could draw', 'integer'),
};
export const hdr = (...names: string[]) =>
  Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const BINARY = { type: 'string', format: 'binary' };
export const binary = (...types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: BINARY }]));
export const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
/** A response whose body is the named component schema as JSON. */
export const one = (name: string, description: string) => ({ description, content: json(ref(name)) });

const CODE_WHEN: Record<ErrorCode, string> = {
  invalid_request: 'the body or query failed validation; `details` lists `{path, message}` per field',
  unauthorized: 'missing, unknown or revoked API key where one is required',
  url_blocked: 'the target URL (or a redirect hop) is not allowed by the egress policy',
  not_found: "unknown id, or another key's resource",
  conflict: "the request conflicts with the resource's state",
  gone: 'the job result expired (jobs.resultTtlHours) and was removed',
  payload_too_large: 'the body is over the limit',
  unsupported_media_type: 'the body is not of an accepted Content-Type',
  render_failed: 'the page could not be rendered',
  invalid_pdf: 'an uploaded PDF cannot be read safely (broken, too many pages, encrypted without its password)',
  rate_limited: 'over the per-key or per-IP rate limit',
  queue_full: "the render queue (or the key's job queue) is full",
  internal: 'a bug: the message is generic, the cause is in the log under the request id',
  render_crashed: "the page's renderer process ended mid-render (killed, out of memory); try again",
  unavailable: 'shutting down, the browser cannot be started, or the database cannot be reached (with Retry-After)',
  render_timeout: 'the render exceeded its timeout',
  insufficient_storage:
    "the service's disk (or the database's) is full, or its free space is under storage.minFreeBytes; with Retry-After",
};

/** Error responses for the given codes, grouped by status, each the shared Error body with its codes. */
export function errors(codes: ErrorCode[], why: Partial<Record<ErrorCode, string>> = {}): Record<string, JsonSchema> {
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of codes) {
    const status = String(ERROR_STATUS[code]);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `\`${c}\`: ${why[c] ?? CODE_WHEN[c]}`).join('; '),
        headers: hdr('X-Request-Id', ...(status === '429' || status === '507' ? ['Retry-After'] : [])),
        content: json({ allOf: [ref('Error'), { properties: { error: { properties: { code: { enum: list } } } } }] }),
      },
    ]),
  );
}

export type Access = 'key' | 'anonymous' | 'public';
const SECURITY: Record<Access, JsonSchema[] | undefined> = {
  key: undefined, // the document's default: a key, either way
  anonymous: [{}, { bearer: [] }, { apiKey: [] }], // no key is fine; a key sent must be valid
  public: [], // outside /api/: keys are neither needed nor looked at
};
/** What every /api/ route with a principal may answer besides its own errors. */
export const API_ERRORS: ErrorCode[] = ['unauthorized', 'rate_limited', 'internal', 'unavailable'];
export const PAGE_ERRORS: ErrorCode[] = ['internal', 'unavailable'];

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

export function operation(op: Op): JsonSchema {
  const rateLimited = op.access !== 'public';
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      status.startsWith('2')
        ? {
            ...r,
            headers: {
              ...hdr(
                'X-Request-Id',
                ...(rateLimited ? ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] : []),
              ),
              ...(r.headers as object),
            },
          }
        : r,
    ]),
  );
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.description && { description: op.description }),
    tags: [op.tag],
    ...(SECURITY[op.access] && { security: SECURITY[op.access] }),
    ...(op.parameters?.length && { parameters: op.parameters }),
    ...(op.requestBody && { requestBody: op.requestBody }),
    responses,
  };
}

export const idParam = (what: string) => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `The ${what}'s id`,
  schema: { type: 'string' },
});
