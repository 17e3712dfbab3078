// The named errors of the API contract (the error codes /docs and docs/rendering.md list). Anything
// thrown that is not an AppError becomes a generic 500 in the error middleware, with its cause logged, never sent.
// Messages are one plain sentence each: what happened, the limit in human units, and what to do.
import { humanBytes, humanMs } from './domain/units.js';

/** Every code of the contract's error table (and 410 gone, which "Jobs" adds), with its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  url_blocked: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  render_failed: 422,
  invalid_pdf: 422,
  rate_limited: 429,
  queue_full: 429,
  internal: 500,
  render_crashed: 502,
  unavailable: 503,
  render_timeout: 504,
  insufficient_storage: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      details?: ErrorDetail[];
      retryAfterSeconds?: number;
      cause?: unknown;
      /** The same work may succeed if tried again (a crashed page): async jobs retry it. */
      retryable?: boolean;
      /**
       * Said in the service log with the request id, never in the response: e.g. what an internal name
       * resolved to, which would map the network for whoever asked.
       */
      logDetail?: string;
    } = {},
  ) {
    super(message, { cause: extra.cause });
    this.status = ERROR_STATUS[code];
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError('invalid_request', message, { details });
/** A PDF given to the PDF tools that cannot be read safely: broken, encrypted without its password, too big. */
export const invalidPdf = (message: string, details?: ErrorDetail[]) =>
  new AppError('invalid_pdf', message, { details });
export const notFound = (message = 'Not found') => new AppError('not_found', message);
/** `keyLimit`: the larger limit an API key gets, named when the caller has none (so they know the way out). */
export const payloadTooLarge = (limit: number, keyLimit?: number) =>
  new AppError(
    'payload_too_large',
    `The request body is larger than the limit of ${humanBytes(limit)}` +
      (keyLimit !== undefined && keyLimit > limit
        ? `; send less, or use an API key, which raises the limit to ${humanBytes(keyLimit)}.`
        : '; send less, e.g. smaller inline images or fewer pages at a time.'),
  );
export const unsupportedMediaType = (got: string | undefined, accepted = 'application/json or text/html') =>
  new AppError(
    'unsupported_media_type',
    `The Content-Type header must be ${accepted}${got ? `, not ${got}` : ', and it is missing'}; set it to match the body.`,
  );
export const unauthorized = (
  message = 'A valid API key is required: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"; an operator makes one with pagewatch keys create.',
) => new AppError('unauthorized', message);
/** The policy's reason (which may name internal addresses) goes to the log only. */
export const urlBlocked = (reason: string) =>
  new AppError(
    'url_blocked',
    'The URL is not allowed by the egress policy: the service does not fetch private or internal addresses; use an address on the internet, or ask the operator to allow this host.',
    { logDetail: reason },
  );
/** A webhookUrl the egress policy refuses is a bad field (400); its reason goes to the log only, like urlBlocked's. */
export const webhookUrlBlocked = (reason: string) =>
  new AppError(
    'invalid_request',
    'The webhookUrl is not allowed by the egress policy: the service does not call private or internal addresses; use an address on the internet.',
    {
      details: [{ path: 'webhookUrl', message: 'not allowed by the egress policy' }],
      logDetail: reason,
    },
  );
export const rateLimited = (retryAfterSeconds: number, message = rateLimitMessage(retryAfterSeconds)) =>
  new AppError('rate_limited', message, { retryAfterSeconds });

/** The per-minute limit, said once: how long to wait (Retry-After carries the same number for scripts). */
export function rateLimitMessage(retryAfterSeconds: number, perMinute?: number, anonymous = false): string {
  const limit = perMinute === undefined ? 'the request limit' : `the limit of ${perMinute} requests a minute`;
  const wait = `wait ${retryAfterSeconds} s and try again`;
  return `You have reached ${limit}${anonymous ? ' without an API key' : ''}: ${anonymous ? `${wait}, or use an API key, which has a higher limit` : wait}.`;
}
export const renderFailed = (message: string, cause?: unknown, retryable = false, details?: ErrorDetail[]) =>
  new AppError('render_failed', message, { cause, retryable, details });
/**
 * The page's renderer process ended mid-render (killed, out of memory): the page is not to blame, the
 * service is, and trying again usually works. 502 (the renderer behind the service gave no answer), not
 * 422 (nothing is wrong with the request) nor 503 (the service is up: the next render gets a new renderer).
 */
export const renderCrashed = (cause?: unknown) =>
  new AppError(
    'render_crashed',
    'The page crashed while rendering (its renderer process ended, e.g. out of memory); try again.',
    { cause, retryable: true },
  );
export const queueFull = (
  retryAfterSeconds: number,
  message = `The render queue is full: try again in ${retryAfterSeconds} s.`,
) => new AppError('queue_full', message, { retryAfterSeconds });
export const conflict = (message: string) => new AppError('conflict', message);
/** Not in the contract's table: a job result past jobs.resultTtlHours (410, as "Jobs" says). */
export const gone = (message: string) => new AppError('gone', message);
export const unavailable = (message: string, cause?: unknown) => new AppError('unavailable', message, { cause });
/** Seconds a client is told to wait (Retry-After) while the database is down or restarting. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/** The database cannot be reached just now (src/stores/unavailable.ts says which errors mean that). */
export const databaseUnavailable = (cause: unknown) =>
  new AppError(
    'unavailable',
    `The service cannot reach its database just now: try again in ${DATABASE_RETRY_AFTER_SECONDS} s.`,
    { cause, retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
  );

/** How long a caller refused for a full disk is asked to wait: an operator has to free space first. */
export const DISK_FULL_RETRY_AFTER_SECONDS = 60;
const fullDiskName = (where: 'local' | 'database') =>
  where === 'database' ? "the database's disk" : "the service's disk";
/**
 * The service has no room to store what it was asked to keep: its own disk (dataDir) or the database's is
 * full (`nearlyFull`: its free space is under storage.minFreeBytes). Retryable: it passes once space is freed.
 */
export const insufficientStorage = (
  where: 'local' | 'database',
  extra: { cause?: unknown; nearlyFull?: boolean } = {},
) =>
  new AppError(
    'insufficient_storage',
    `The disk is ${extra.nearlyFull ? 'nearly ' : ''}full (${fullDiskName(where)}), so nothing more can be stored ` +
      `now: try again in ${DISK_FULL_RETRY_AFTER_SECONDS} s (its operator has to free space).`,
    { cause: extra.cause, retryAfterSeconds: DISK_FULL_RETRY_AFTER_SECONDS, retryable: true },
  );
/** The same fault as a job's (or capture's) recorded reason: it is retried by the worker, not the caller. */
export const jobDiskFull = (where: 'local' | 'database', cause?: unknown) =>
  new AppError(
    'insufficient_storage',
    `The disk is full (${fullDiskName(where)}): there was no room to store the output; ` +
      'it is tried again while it has tries left (jobs.maxAttempts).',
    { cause, retryable: true },
  );
/**
 * `stage`: what the render was doing when its time ran out, said in the log (where a hang is looked for).
 * `message`: a timeout that knows more (which site never sent its page) says so instead.
 */
export const renderTimeout = (ms: number, message?: string, stage?: string) =>
  new AppError(
    'render_timeout',
    message ??
      `The render did not finish within its timeout of ${humanMs(ms)}; raise timeout (in milliseconds, now ${ms}), or make the page ready sooner.`,
    { logDetail: stage && `timed out ${stage}` },
  );
