import { pino, type Logger } from 'pino';

export type { Logger };

// Paths that may carry secrets in anything we log: request headers, render options, errors.
const REDACT = [
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie',
  '*.headers.authorization', '*.headers["x-api-key"]', '*.headers.cookie',
  '*.cookies', '*.httpCredentials', 'options.headers', 'key', 'secret',
];

export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, redact: { paths: REDACT, censor: '[redacted]' } });
}
