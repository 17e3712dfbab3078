// The real HTTP stack (createApp: request log, errors, auth, rate limits, body parsing, validation) over a
// fake renderer, for the parts of the contract a browser takes no part in: 400, 401, 404, 413, 415. It
// starts in milliseconds, so these tests run with the unit tests. A render that gets through is recorded
// and answered with a few fixed bytes.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config-load.js';
import { MemoryRateLimits } from '../../src/stores/sql/sqlite/memory-rate-limits.js';
import { createApp, type AppDeps } from '../../src/http/app.js';
import { httpLimits } from '../../src/http/limits.js';
import { createLogger } from '../../src/log.js';
import type { Renderer, RenderOutput } from '../../src/render/renderer.js';
import type { ImageSpec, PdfSpec } from '../../src/domain/render-spec.js';
import { RELAXED_ANONYMOUS_LIMITS } from './test-config.js';

export interface FakeRender {
  kind: 'pdf' | 'image';
  /** The validated request as the route hands it to the renderer. */
  req: PdfSpec | ImageSpec;
}

export interface FakeApp {
  url: string;
  /** Every render that reached the renderer, in order. */
  renders: FakeRender[];
  /** The one API key the app knows (any other is unknown). */
  key: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export const FAKE_PDF = Buffer.from('%PDF-1.7\n% fake\n%%EOF\n');
export const FAKE_PNG = Buffer.from('89504e470d0a1a0a', 'hex');

const KEY = 'pw_fake_key_for_contract_tests';

function output(bytes: Buffer, contentType: string): RenderOutput {
  return { bytes, contentType, renderMs: 1, truncated: false, blockedRequests: 0 };
}

/** `deps` replaces parts of the app (e.g. a real JobService over real stores, and their keys). */
export async function startFakeApp(
  overrides: Record<string, unknown> = {},
  deps: Partial<AppDeps> = {},
): Promise<FakeApp> {
  const config = loadConfig({
    env: {}, // ignore the developer's PAGEWATCH_* variables
    overrides: {
      port: 0,
      host: '127.0.0.1',
      dataDir: '/nonexistent', // nothing is stored
      // As for the real test service: these tests are not about the anonymous tier's budget or limits.
      rateLimit: { anonymousPerMinute: 1_000_000 },
      ...overrides,
      limits: { ...RELAXED_ANONYMOUS_LIMITS, ...(overrides.limits as Record<string, unknown> | undefined) },
    },
  });
  const renders: FakeRender[] = [];
  const renderer: Renderer = {
    renderPdf: (req) => {
      renders.push({ kind: 'pdf', req });
      return Promise.resolve(output(FAKE_PDF, 'application/pdf'));
    },
    renderImage: (req) => {
      renders.push({ kind: 'image', req });
      return Promise.resolve(output(FAKE_PNG, 'image/png'));
    },
  };
  // What no request of these tests reaches (jobs, monitors, deliveries, operations) is left out: a
  // test that reached one would fail with a 500, not pass by accident.
  const absent = {} as never;
  const keys = {
    findActive: (key: string) => Promise.resolve(key === KEY ? { id: 'key_fake' } : undefined),
    touch: () => Promise.resolve(),
  } as unknown as AppDeps['keys'];
  const app = createApp({
    log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    renderer,
    pdfEngine: absent,
    jobs: absent,
    monitors: absent,
    channels: absent,
    feeds: absent,
    deliveries: absent,
    publicUrl: '',
    readiness: absent,
    keys,
    limits: httpLimits(config),
    auth: config.auth,
    rateLimit: config.rateLimit,
    rateLimits: new MemoryRateLimits(),
    trustProxy: 0,
    status: absent,
    // Every refused render request is counted for the status page (http/middleware/render-refusals.ts).
    metrics: { refused: () => undefined } as unknown as AppDeps['metrics'],
    config,
    isShuttingDown: () => false,
    ...deps,
  } satisfies AppDeps);
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    renders,
    key: KEY,
    post: (path, body, headers = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
