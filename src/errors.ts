// The named errors of the API contract (shared/API.md, "Errors"). Anything thrown that is not an
// AppError becomes a generic 500 in the error middleware, with its cause logged, never sent.

export type ErrorCode =
  | 'invalid_request' | 'unauthorized' | 'url_blocked' | 'not_found' | 'conflict'
  | 'payload_too_large' | 'unsupported_media_type' | 'render_failed' | 'rate_limited'
  | 'queue_full' | 'internal' | 'unavailable' | 'render_timeout' | 'gone';

export interface ErrorDetail { path: string; message: string }

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      details?: ErrorDetail[];
      retryAfterSeconds?: number;
      cause?: unknown;
      /** The same work may succeed if tried again (a crashed page): async jobs retry it. */
      retryable?: boolean;
    } = {},
  ) {
    super(message, { cause: extra.cause });
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError(400, 'invalid_request', message, { details });
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const payloadTooLarge = (limit: number) =>
  new AppError(413, 'payload_too_large', `Request body is larger than the limit of ${limit} bytes`);
export const unsupportedMediaType = (got: string | undefined, accepted = 'application/json or text/html') =>
  new AppError(415, 'unsupported_media_type', `Content-Type must be ${accepted}${got ? `, got ${got}` : ''}`);
export const unauthorized = (message = 'A valid API key is required (Authorization: Bearer <key> or X-API-Key)') =>
  new AppError(401, 'unauthorized', message);
export const urlBlocked = (reason: string) =>
  new AppError(403, 'url_blocked', `The URL is not allowed by the egress policy: ${reason}`);
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', 'Rate limit exceeded; try again after Retry-After seconds', { retryAfterSeconds });
export const renderFailed = (message: string, cause?: unknown, retryable = false) =>
  new AppError(422, 'render_failed', message, { cause, retryable });
export const queueFull = (retryAfterSeconds: number, message = 'The render queue is full; try again shortly') =>
  new AppError(429, 'queue_full', message, { retryAfterSeconds });
export const conflict = (message: string) => new AppError(409, 'conflict', message);
/** Not in the contract's table: a job result past jobs.resultTtlHours (410, as "Jobs" says). */
export const gone = (message: string) => new AppError(410, 'gone', message);
export const unavailable = (message: string, cause?: unknown) =>
  new AppError(503, 'unavailable', message, { cause });
export const renderTimeout = (ms: number) =>
  new AppError(504, 'render_timeout', `The render did not finish within its timeout of ${ms} ms`);
