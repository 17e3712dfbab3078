import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

// Paths that may carry secrets in anything we log: request headers, render options, errors.
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers.cookie',
  '*.cookies',
  '*.httpCredentials',
  'options.headers',
  // PDF passwords (encrypt.userPassword / ownerPassword, an input's password): write-only.
  '*.encrypt',
  '*.password',
  '*.passwords',
  '*.userPassword',
  '*.ownerPassword',
  'key',
  'secret',
];

const URL_IN_TEXT = /\b(?:https?|wss?):\/\/[^\s"'<>`]+/gi;

/** A URL without what may be secret in it: user info, query string, fragment. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?[redacted]' : ''}`;
  } catch {
    return '[url]';
  }
}

export function scrubUrls(text: string): string {
  return text.replace(URL_IN_TEXT, redactUrl);
}

/** Scrub every string in a log record, errors included (formatters run before pino's serializers). */
function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubUrls(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return {
      type: value.name,
      message: scrubUrls(value.message),
      stack: value.stack && scrubUrls(value.stack),
      ...(value.cause !== undefined && { cause: scrub(value.cause, depth + 1) }),
    };
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, depth + 1)]));
}

/**
 * JSON lines on stdout (or `destination`, for tests that read what was logged). Page URLs, which
 * can carry tokens in their query or credentials in their user info, are scrubbed everywhere.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: { paths: REDACT, censor: '[redacted]' },
    formatters: { log: (record: Record<string, unknown>) => scrub(record) as Record<string, unknown> },
    hooks: {
      logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? scrubUrls(a) : a)),
        );
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
