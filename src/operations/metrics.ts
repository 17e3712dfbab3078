// Prometheus metrics (prom-client): counters and a histogram moved by every render (synchronous,
// async jobs, monitor captures), and gauges read from the status snapshot at scrape time.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { AppError } from '../errors.js';
import { RenderAborted, type RenderOptions, type RenderOutput, type Renderer } from '../render/renderer.js';
import type { ImageSpec, PdfSpec } from '../domain/render-spec.js';
import { RenderHistory, type Outcome } from './render-history.js';
import type { StatusSnapshot } from './status.js';

export class Metrics {
  readonly registry = new Registry();
  private readonly renders = new Counter({
    name: 'pagewatch_renders_total',
    help: 'Renders by kind (pdf, image) and outcome (ok or the error code)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly renderSeconds = new Histogram({
    name: 'pagewatch_render_duration_seconds',
    help: 'Render time of successful renders, queue wait included',
    labelNames: ['kind'] as const,
    buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });

  /** Errors already counted by the metered renderer: the HTTP layer must not count them again. */
  private readonly counted = new WeakSet<object>();

  constructor(
    snapshot: () => Promise<StatusSnapshot>,
    /** The last hour, minute by minute, for /api/status (this node's renders). */
    readonly history: RenderHistory = new RenderHistory(),
  ) {
    collectDefaultMetrics({ register: this.registry, prefix: 'pagewatch_process_' });
    // One snapshot serves all the gauges of a scrape (they are collected one after another).
    let current: { at: number; snapshot: Promise<StatusSnapshot> } | undefined;
    const read = () => {
      if (!current || Date.now() - current.at > 500) current = { at: Date.now(), snapshot: snapshot() };
      return current.snapshot;
    };
    const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, s: StatusSnapshot) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        async collect() {
          fill(this, await read());
        },
      });
    gauge('pagewatch_render_queue_depth', 'Renders waiting for a slot', [], (g, s) => g.set(s.render.queued));
    gauge('pagewatch_renders_active', 'Renders running now', [], (g, s) => g.set(s.render.active));
    gauge('pagewatch_browser_up', '1 when the browser is connected', [], (g, s) => g.set(s.browser.up ? 1 : 0));
    gauge('pagewatch_browser_warm_pages', 'Warm pages ready for reuse', [], (g, s) => g.set(s.browser.warmPages));
    gauge('pagewatch_jobs', 'Async jobs by status', ['status'], (g, s) => {
      for (const [status, n] of Object.entries(s.jobs)) g.set({ status }, n);
    });
    gauge(
      'pagewatch_webhook_deliveries',
      'Webhook deliveries by status (pending is the backlog)',
      ['status'],
      (g, s) => {
        for (const [status, n] of Object.entries(s.webhooks)) g.set({ status }, n);
      },
    );
    gauge('pagewatch_monitors', 'Monitors by state', ['state'], (g, s) => {
      g.set({ state: 'active' }, s.monitors.active);
      g.set({ state: 'paused' }, s.monitors.paused);
    });
    new Counter({
      name: 'pagewatch_browser_restarts_total',
      help: 'Browser recycles and relaunches since start',
      registers: [this.registry],
      async collect() {
        const { browser } = await read();
        this.reset();
        this.inc(browser.restarts);
      },
    });
  }

  /** A renderer that counts and times everything that passes through it. */
  metered(renderer: Renderer): Renderer {
    const track = async (kind: 'pdf' | 'image', render: () => Promise<RenderOutput>): Promise<RenderOutput> => {
      const stop = this.renderSeconds.startTimer({ kind });
      try {
        const out = await render();
        stop();
        this.renders.inc({ kind, outcome: 'ok' });
        this.history.outcome('ok');
        this.history.renderTime(out.renderMs); // what the caller sees in X-Render-Ms
        return out;
      } catch (err) {
        this.renders.inc({ kind, outcome: outcomeOf(err) });
        this.history.outcome(historyOutcome(err));
        if (typeof err === 'object' && err !== null) this.counted.add(err);
        throw err;
      }
    };
    return {
      renderPdf: (req: PdfSpec, signal: AbortSignal, options?: RenderOptions) =>
        track('pdf', () => renderer.renderPdf(req, signal, options)),
      renderImage: (req: ImageSpec, signal: AbortSignal, options?: RenderOptions) =>
        track('image', () => renderer.renderImage(req, signal, options)),
    };
  }

  /**
   * A render request refused before it reached the renderer (over the rate limit, the key's job queue
   * full, a blocked URL refused at submission): counted in the last hour's outcomes. Errors the renderer
   * threw were counted there, and other errors (a bad request) are no render at all.
   */
  refused(err: unknown): void {
    if (!(err instanceof AppError) || this.counted.has(err)) return;
    if (err.code === 'rate_limited' || err.code === 'queue_full' || err.code === 'url_blocked')
      this.history.outcome(historyOutcome(err));
  }
}

/** The status page's groups: the error codes a render can end with, in a person's words. */
function historyOutcome(err: unknown): Outcome {
  if (err instanceof RenderAborted) return 'canceled';
  if (!(err instanceof AppError)) return 'failed';
  const groups: Partial<Record<string, Outcome>> = {
    url_blocked: 'blocked',
    render_timeout: 'timedOut',
    rate_limited: 'rateLimited',
    queue_full: 'queueFull',
  };
  return groups[err.code] ?? 'failed';
}

function outcomeOf(err: unknown): string {
  if (err instanceof RenderAborted) return 'aborted';
  if (err instanceof AppError) return err.code;
  return 'internal';
}
