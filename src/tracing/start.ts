// Tracing as a part of the node (src/lifecycle.ts): with tracing.endpoint set, start() loads the
// OpenTelemetry SDK (imported here only, and only then), makes the provider, its sampler and the
// OTLP/HTTP exporter behind a batch processor, and hands spans.ts its tracer. It starts first and
// stops last, so the spans of the last renders and deliveries are sent before the process exits.
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import { trimTrailingSlashes } from '../domain/trim.js';
import { parseExportHeaders } from './export-headers.js';
import { useTracing } from './spans.js';

/** Who the spans come from: the resource attributes every span of this process carries. */
export interface TracedNode {
  id: string;
  role: string;
  version: string;
}

let sdkLoaded = false;

/** Whether this process has loaded the SDK: only a started Tracing does (tests check tracing off never does). */
export function sdkLoadedInProcess(): boolean {
  return sdkLoaded;
}

/** The OTLP/HTTP path of traces under the collector's base URL. */
export function tracesUrl(endpoint: string): string {
  return `${trimTrailingSlashes(endpoint)}/v1/traces`;
}

/**
 * The least time the last batch gets at shutdown, even when the renders in flight used up the whole
 * grace: a collector that answers at all answers a batch well within it.
 */
const LAST_BATCH_MS = 1000;

export class Tracing implements Lifecycle {
  readonly name = 'tracing';
  private provider: BasicTracerProvider | undefined;
  private context: { disable(): void } | undefined;

  constructor(
    private readonly settings: Config['tracing'],
    private readonly node: TracedNode,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }, core, hooks, api, semconv] = await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/api'),
      import('@opentelemetry/semantic-conventions'),
    ]);
    sdkLoaded = true;
    const { settings, node, log } = this;
    // An export that fails (the collector down) is said once per batch; the service goes on.
    core.setGlobalErrorHandler((err) =>
      log.warn({ err: err instanceof Error ? err.message : JSON.stringify(err) }, 'could not send traces'),
    );
    const exporter = new OTLPTraceExporter({
      url: tracesUrl(settings.endpoint),
      headers: parseExportHeaders(settings.headers),
    });
    this.provider = new sdk.BasicTracerProvider({
      resource: resourceFromAttributes({
        [semconv.ATTR_SERVICE_NAME]: settings.serviceName,
        [semconv.ATTR_SERVICE_VERSION]: node.version,
        'service.instance.id': node.id,
        'pagewatch.role': node.role,
      }),
      // A traceparent's sampled flag is followed; a trace that starts here is kept at sampleRatio.
      sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(settings.sampleRatio) }),
      spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: settings.exportDelayMs })],
    });
    // Spans find their parent across awaits through AsyncLocalStorage; registered once per process.
    const manager = new hooks.AsyncLocalStorageContextManager().enable();
    if (api.context.setGlobalContextManager(manager)) this.context = api.context;
    useTracing({
      tracer: this.provider.getTracer('pagewatch', node.version),
      propagator: new core.W3CTraceContextPropagator(),
    });
    log.info({ endpoint: new URL(settings.endpoint).origin, sampleRatio: settings.sampleRatio }, 'tracing on');
  }

  /** Sends what is still batched, by the deadline; spans that could not be sent by then are dropped. */
  async stop(deadline: number): Promise<void> {
    useTracing(undefined);
    const provider = this.provider;
    this.provider = undefined;
    if (!provider) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(LAST_BATCH_MS, deadline - Date.now()));
    });
    try {
      const ended = await Promise.race([provider.shutdown().then(() => 'sent' as const), late]);
      if (ended === 'late') this.log.warn('tracing stopped before its last spans were sent');
    } finally {
      clearTimeout(timer);
      this.context?.disable();
      this.context = undefined;
    }
  }
}
