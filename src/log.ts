import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

// Paths that may carry secrets in anything we log: request headers, render options, errors.
const REDACT = [
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie',
  '*.headers.authorization', '*.headers["x-api-key"]', '*.headers.cookie',
  '*.cookies', '*.httpCredentials', 'options.headers', 'key', 'secret',
];

/** JSON lines on stdout (or `destination`, for tests that read what was logged). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: undefined, redact: { paths: REDACT, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
