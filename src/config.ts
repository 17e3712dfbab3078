// Settings are declared once here, each with its default and a description; config/default.json
// mirrors them for people to read and edit. Load order: config/default.json → config/<PAGEWATCH_ENV>.json
// (if present) → environment variables (PAGEWATCH_ + the setting's path in UPPER_SNAKE_CASE); the loading
// is in config-load.ts.
import { z } from 'zod';
import { NODE_ROLES } from './domain/node-role.js';
import { parseExportHeaders } from './tracing/export-headers.js';

const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const configSchema = z
  .object({
    port: int(0, 65535).default(3000).describe('HTTP port to listen on'),
    host: z.string().default('0.0.0.0').describe('Address to bind'),
    dataDir: z.string().min(1).default('./data').describe('Directory for the SQLite file and stored outputs'),
    chromiumPath: z
      .string()
      .default('')
      .describe('Chromium executable; empty = discover (Playwright-managed, then system)'),
    logLevel: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('Log level'),
    shutdownGraceMs: int(0, 600_000)
      .default(30_000)
      .describe('On SIGTERM/SIGINT, how long renders in flight may take to finish'),
    // A number of hops since the sandbox review; true and false (the old form) still mean 1 and 0.
    trustProxy: z
      .union([int(0, 16), z.boolean().transform((on) => (on ? 1 : 0))])
      .default(0)
      .describe(
        'Reverse proxies in front of the service whose X-Forwarded-For is believed: the client is that many ' +
          'hops from the right; 0 = none',
      ),
    publicUrl: z
      .union([z.literal(''), z.url({ protocol: /^https?$/ })])
      .default('')
      .describe(
        'The address clients reach the service at, for absolute URLs in jobs and webhooks; empty = taken from ' +
          'each request',
      ),
    role: z
      .enum(NODE_ROLES)
      .default('all')
      .describe(
        'What this node does: all = everything; api = HTTP (synchronous renders included), no jobs, schedules ' +
          'or webhooks; worker = jobs, schedules and webhooks, HTTP only for /health, /ready and /metrics',
      ),
    database: z
      .object({
        url: z
          .union([z.literal(''), z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')])
          .default('')
          .describe('Empty = SQLite in dataDir; postgres://user:password@host:port/database = PostgreSQL'),
        poolSize: int(1, 1000).default(10).describe('PostgreSQL connections this node keeps at most'),
        preparedStatements: z
          .boolean()
          .default(true)
          .describe(
            'Keep the statements the service repeats prepared on each PostgreSQL connection (planned once); ' +
              'false for PgBouncer in transaction mode before 1.21',
          ),
        tls: z
          .object({
            mode: z
              .enum(['', 'disable', 'require', 'verify-full'])
              .default('')
              .describe(
                'TLS to PostgreSQL: disable, require (encrypted, server not verified) or verify-full; empty = ' +
                  "what the URL's sslmode says, else disable",
              ),
            caFile: z
              .string()
              .default('')
              .describe('PEM file of the certificate authority that verify-full trusts; empty = the system CAs'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    storage: z
      .object({
        driver: z
          .enum(['', 'fs', 'database'])
          .default('')
          .describe(
            'Where results, captures and diff images are kept: fs = files under dataDir (several nodes need a ' +
              'shared volume); database = in PostgreSQL; empty = database with PostgreSQL, fs with SQLite',
          ),
        minFreeBytes: int(0, Number.MAX_SAFE_INTEGER)
          .default(256 * 1024 * 1024)
          .describe(
            'Free space dataDir must keep (when SQLite or storage.driver=fs writes there): below it /ready ' +
              'answers 503 and async submissions 507 insufficient_storage; 0 = no threshold',
          ),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        maxBodyBytes: int(1024, 256 * 1024 * 1024)
          .default(8 * 1024 * 1024)
          .describe('Largest request body (JSON or HTML)'),
        uploadMaxBytes: int(1024, 1024 * 1024 * 1024)
          .default(32 * 1024 * 1024)
          .describe('Largest multipart/form-data upload (index.html and its assets), the whole body'),
        anonymousUploadMaxBytes: int(1024, 1024 * 1024 * 1024)
          .default(2 * 1024 * 1024)
          .describe('Largest upload without an API key'),
        uploadMaxFiles: int(1, 10_000).default(200).describe('Most files in one upload'),
        anonymousUploadMaxFiles: int(1, 10_000).default(50).describe('Most files in one upload without an API key'),
        uploadMaxFileBytes: int(1, 1024 * 1024 * 1024)
          .default(16 * 1024 * 1024)
          .describe('Largest single file of an upload'),
        maxTimeoutMs: int(1000, 3_600_000)
          .default(120_000)
          .describe('Largest per-render timeout a request may ask for'),
        maxFullPageHeight: int(100, 100_000)
          .default(16_384)
          .describe(
            'Largest width or height of a captured image in CSS px, every capture mode; a full page is cut ' +
              'here (X-Truncated)',
          ),
        maxImagePixels: int(10_000, 1_000_000_000)
          .default(50_000_000)
          .describe('Largest image in output pixels (width × height × deviceScaleFactor²), every capture mode'),
        anonymousMaxBodyBytes: int(1024, 256 * 1024 * 1024)
          .default(1024 * 1024)
          .describe('Largest request body without an API key'),
        anonymousMaxTimeoutMs: int(1000, 3_600_000)
          .default(30_000)
          .describe('Largest per-render timeout without an API key'),
        anonymousConcurrencyPerIp: int(1, 1000)
          .default(1)
          .describe('Renders at once per client address without an API key (IPv6: per /64)'),
        anonymousMaxPdfPages: int(1, 100_000)
          .default(50)
          .describe('Largest PDF without an API key, in pages; a longer document is 422'),
      })
      .strict()
      .prefault({}),
    render: z
      .object({
        concurrency: int(0, 64).default(0).describe('Renders at once; 0 = number of CPU cores, at least 2'),
        queueSize: int(0, 100_000).default(100).describe('Renders waiting for a slot; beyond it 429 queue_full'),
        restartAfter: int(1, 1_000_000).default(500).describe('Recycle the browser after this many renders'),
        warmPages: int(0, 128)
          .default(0)
          .describe('Warm pages kept ready for reuse; 0 = concurrency + 1 (one is wiped while the others render)'),
        pageMaxUses: int(1, 100_000).default(100).describe('Retire a warm page after this many renders'),
        sandbox: z
          .enum(['auto', 'on', 'off'])
          .default('auto')
          .describe(
            "Chromium's sandbox: auto = on unless the service runs as root; on = always (fails to start where " +
              'it cannot); off = never',
          ),
      })
      .strict()
      .prefault({}),
    fonts: z
      .object({
        dir: z
          .string()
          .default('')
          .describe(
            'Directory of extra fonts (ttf, otf, ttc; not woff/woff2) Chromium draws with besides the system ' +
              'fonts; a font added or removed there is used from the next render on (the browser is recycled); ' +
              'empty = none',
          ),
      })
      .strict()
      .prefault({}),
    pdf: z
      .object({
        timeoutMs: int(1000, 3_600_000)
          .default(60_000)
          .describe(
            'Longest the PDF tools may spend on one request (checks, merge, finishing, split), all steps together',
          ),
        memoryMb: int(64, 65_536)
          .default(1024)
          .describe('Memory each PDF tool process (qpdf, the pdf-lib worker) may use, in MiB'),
        maxPages: int(1, 1_000_000).default(5000).describe('Pages a PDF given to or made by the PDF tools may have'),
        maxFiles: int(1, 10_000).default(50).describe('PDFs one PDF tool call (a merge) may take'),
        concurrency: int(1, 64)
          .default(2)
          .describe('PDF tool calls and finishings of synchronous requests that run at once (each up to memoryMb)'),
        queueSize: int(0, 10_000)
          .default(16)
          .describe('Synchronous PDF work waiting for a slot; beyond it a request gets 429 queue_full'),
      })
      .strict()
      .prefault({}),
    auth: z
      .object({
        anonymous: z
          .boolean()
          .default(true)
          .describe('Allow synchronous renders without an API key (the public converter tier)'),
        publicOperations: z
          .boolean()
          .default(true)
          .describe('Serve /api/status and /metrics without an API key; false requires one (any active key)'),
      })
      .strict()
      .prefault({}),
    rateLimit: z
      .object({
        perKeyPerMinute: int(1, 1_000_000).default(600).describe('Requests per minute per API key'),
        anonymousPerMinute: int(1, 1_000_000).default(20).describe('Requests per minute per client IP without a key'),
      })
      .strict()
      .prefault({}),
    jobs: z
      .object({
        maxAttempts: int(1, 100)
          .default(3)
          .describe('Tries per async job (a worker that died, a browser that crashed) before it fails'),
        resultTtlHours: z
          .number()
          .positive()
          .max(24 * 365)
          .default(24)
          .describe('How long a job result can be fetched; then 410 and the file is removed'),
        leaseMs: int(1000, 3_600_000)
          .default(30_000)
          .describe('A running job whose worker has not renewed its claim for this long is taken up again'),
        maxQueuedPerKey: int(1, 10_000_000)
          .default(1000)
          .describe('Queued and running jobs per API key; beyond it 429 queue_full'),
        pollIntervalMs: int(20, 60_000)
          .default(1000)
          .describe('How often workers look for due work they were not told about'),
        sweepIntervalMs: int(100, 86_400_000)
          .default(60_000)
          .describe('How often expired results and idempotency keys are removed'),
        recordTtlDays: z
          .number()
          .positive()
          .max(36_500)
          .default(30)
          .describe(
            'Finished jobs, webhook deliveries and their attempts older than this are deleted; fractions allowed',
          ),
      })
      .strict()
      .prefault({}),
    webhooks: z
      .object({
        retryScheduleMs: z
          .array(int(0, 30 * 86_400_000))
          .max(30)
          .default([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000])
          .describe(
            'Delays before each retry of a failed delivery (each with ±20 % jitter); its length is the number ' +
              'of retries',
          ),
        timeoutMs: int(100, 120_000)
          .default(15_000)
          .describe('A receiver that has not answered in this time has failed the attempt'),
        maxInFlight: int(1, 1000).default(8).describe('Deliveries sent at once'),
        secretGraceHours: z
          .number()
          .min(0)
          .max(24 * 90)
          .default(24)
          .describe('After `keys rotate-secret`, how long the old secret also signs'),
      })
      .strict()
      .prefault({}),
    email: z
      .object({
        smtp: z
          .object({
            host: z
              .string()
              .default('')
              .describe('SMTP server that sends email channels; empty = email channels refuse to send, saying so'),
            port: int(1, 65535).default(587).describe('SMTP port'),
            security: z
              .enum(['starttls', 'tls', 'none'])
              .default('starttls')
              .describe(
                'starttls = plain connection upgraded with STARTTLS (required); tls = TLS from the start (port ' +
                  '465); none = no TLS (only for a relay on a trusted network)',
              ),
            user: z.string().default('').describe('SMTP user name; empty = no authentication'),
            password: z.string().default('').describe('SMTP password (secret: never logged or shown)'),
          })
          .strict()
          .prefault({}),
        from: z
          .string()
          .min(3)
          .default('Pagewatch <pagewatch@localhost>')
          .describe('The From address of email channels'),
      })
      .strict()
      .prefault({}),
    monitors: z
      .object({
        maxPerKey: int(1, 1_000_000).default(1000).describe('Monitors per API key; beyond it 409 conflict'),
        maxRetention: int(1, 100_000).default(1000).describe('Largest retention.keep a monitor may ask for'),
        diffThreads: int(0, 64)
          .default(0)
          .describe('Worker threads that compare captures; 0 = CPU cores − 1, at least 1'),
        minIntervalSeconds: int(1, 86_400)
          .default(60)
          .describe("Shortest time between two runs of a monitor's schedule; a faster schedule is 400"),
        reconcileIntervalMs: int(100, 3_600_000)
          .default(10_000)
          .describe(
            "How often a node's monitor schedules are compared with the database anyway (monitors changed " +
              'through another node are also picked up at once when the database says so)',
          ),
        maxStoredBytesPerKey: int(1024 * 1024, Number.MAX_SAFE_INTEGER)
          .default(2 * 1024 ** 3)
          .describe(
            'Capture images and diffs kept per API key, in bytes; past it the oldest captures that are not a ' +
              'baseline are removed',
          ),
        maxContentBytes: int(1024, 1024 ** 3)
          .default(20 * 1024 * 1024)
          .describe(
            "Bytes of a monitor's response read for a JSON, text, PDF or binary capture, counted after " +
              'decompression; past it the rest is not read and the capture says it was cut',
          ),
        pdfMaxPages: int(1, 10_000).default(50).describe('Pages of a watched PDF whose text is read and compared'),
        pdfPicturePages: int(1, 50).default(3).describe("Pages of a watched PDF drawn into the capture's picture"),
        loginTtlHours: int(1, 8760)
          .default(168)
          .describe(
            "How long a monitor's saved login (capture.saveLogin) is used, in hours from when its steps signed in; " +
              'after it the steps run again',
          ),
      })
      .strict()
      .prefault({}),
    egress: z
      .object({
        allowPrivate: z
          .boolean()
          .default(false)
          .describe('Let renders and webhooks reach non-public addresses (loopback, private, link-local...)'),
        allowHosts: z
          .array(z.string().min(1))
          .default([])
          .describe('Hosts always allowed: names, *.suffix, IPs or CIDRs'),
        denyHosts: z
          .array(z.string().min(1))
          .default([])
          .describe('Hosts always refused: names, *.suffix, IPs or CIDRs'),
      })
      .strict()
      .prefault({}),
    tracing: z
      .object({
        endpoint: z
          .union([z.literal(''), z.url({ protocol: /^https?$/ })])
          .default('')
          .describe(
            'OpenTelemetry collector to send traces to over OTLP/HTTP (JSON), e.g. http://collector:4318: spans ' +
              'go to <endpoint>/v1/traces; empty = no tracing (the default)',
          ),
        serviceName: z.string().min(1).max(200).default('pagewatch').describe('service.name of the traces'),
        sampleRatio: z
          .number()
          .min(0)
          .max(1)
          .default(1)
          .describe("Share of new traces recorded, 0 to 1; a request's sampled (or unsampled) traceparent is followed"),
        headers: z
          .string()
          .default('')
          .refine((text) => parseExportHeaders(text) !== undefined, 'name=value pairs separated by commas')
          .describe(
            'HTTP headers sent with each export, as name=value pairs separated by commas (e.g. an API key of a ' +
              'hosted collector: x-api-key=...); secret: never logged or shown',
          ),
        exportDelayMs: int(10, 60_000)
          .default(5000)
          .describe('Longest a finished span waits before it is sent (spans go in batches)'),
      })
      .strict()
      .prefault({}),
    secrets: z
      .object({
        key: z
          .string()
          .regex(/^(|[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, '64 hex digits or 44 base64 characters (32 bytes)')
          .default('')
          .describe(
            'Key that encrypts monitor secrets at rest (AES-256-GCM), 32 bytes as hex or base64; empty = ' +
              'generated once into dataDir/secret.key',
          ),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** storage.driver=database keeps files in PostgreSQL: with SQLite it is refused at start-up, with this. */
export function checkStorageDriver(config: Pick<Config, 'storage' | 'database'>): void {
  if (config.storage.driver === 'database' && !config.database.url) {
    throw new ConfigError(
      'storage.driver is "database", which keeps files in PostgreSQL, but database.url is empty (SQLite): set ' +
        'database.url to a postgres:// URL, or storage.driver to "fs" (or leave it empty)',
    );
  }
}

/** The upload limits without a key: the anonymous ones, never more than the keyed ones. */
export function anonymousUploadLimits(limits: {
  uploadMaxBytes: number;
  anonymousUploadMaxBytes: number;
  uploadMaxFiles: number;
  anonymousUploadMaxFiles: number;
}): { maxBytes: number; maxFiles: number } {
  return {
    maxBytes: Math.min(limits.uploadMaxBytes, limits.anonymousUploadMaxBytes),
    maxFiles: Math.min(limits.uploadMaxFiles, limits.anonymousUploadMaxFiles),
  };
}

/** The largest body without a key: the anonymous limit, never more than the keyed one. */
export function anonymousBodyLimit(limits: { maxBodyBytes: number; anonymousMaxBodyBytes: number }): number {
  return Math.min(limits.maxBodyBytes, limits.anonymousMaxBodyBytes);
}
