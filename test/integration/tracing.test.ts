// OpenTelemetry traces end to end: the real service with tracing.endpoint set to a loopback OTLP/HTTP
// receiver (test/helpers/otlp-receiver.ts) that decodes the JSON exports it gets. A synchronous PDF render,
// an async job with its webhook, and a monitor capture each arrive as a trace whose spans share its id and
// hang from the right parents; an incoming traceparent is continued and a malformed one starts a new
// trace; the webhook's receiver gets the delivery span's traceparent and the signature still verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePdf } from '../helpers/pdf.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { only, startOtlpReceiver, traceOf, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { tracingOn } from '../../src/tracing/spans.js';

const COLLECTOR_KEY = 'collector-key-value-never-shown';
/** A late element: the render's waitForSelector has something to wait for. */
const LATE_PAGE = `<!doctype html><body><h1>TRACED PAGE</h1><script>
setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'LATE CONTENT';
document.body.append(p); }, 300);</script></body>`;
const SERVER = 2; // SpanKind.SERVER in OTLP's numbering (SPAN_KIND_SERVER)
const ERROR = 2; // STATUS_CODE_ERROR

let otlp: OtlpReceiver;
let fx: FixtureServer;
let hooks: WebhookReceiver;
let svc: TestService;
let key: { id: string; key: string; webhookSecret: string };

beforeAll(async () => {
  [otlp, fx, hooks] = await Promise.all([startOtlpReceiver(), startFixtureServer(), startWebhookReceiver()]);
  fx.route('/late', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(LATE_PAGE);
  });
  svc = await startTestService({
    // A short batch delay: spans arrive within a tenth of a second of their end.
    tracing: { endpoint: otlp.url, exportDelayMs: 50, headers: `x-collector-key=${COLLECTOR_KEY}` },
    jobs: { pollIntervalMs: 100 },
  });
  key = svc.createKey('traced');
});
afterAll(async () => {
  await Promise.all([svc?.close(), otlp?.close(), fx?.close(), hooks?.close()]);
});

/** The server span of the request `requestId` names, once it has arrived. */
function serverSpanOf(requestId: string): Promise<ReceivedSpan> {
  return until(`the server span of request ${requestId}`, () =>
    otlp.spans.find((s) => s.kind === SERVER && s.attributes['pagewatch.request.id'] === requestId),
  );
}

/** Waits until the trace holds every span named (each one has ended and been exported). */
function traceWith(traceId: string, names: string[]): Promise<ReceivedSpan[]> {
  return until(
    () =>
      `spans ${names.join(', ')} in trace ${traceId}; have ${traceOf(otlp.spans, traceId)
        .map((s) => s.name)
        .join(', ')}`,
    () => {
      const trace = traceOf(otlp.spans, traceId);
      return names.every((n) => trace.some((s) => s.name === n)) && trace;
    },
  );
}

describe('tracing on', () => {
  it('a synchronous PDF render is one trace: server span, render, queue wait, load, its wait, capture, post-processing', async () => {
    expect(tracingOn()).toBe(true);
    const res = await svc.post('/api/pdf', {
      url: `${fx.url}/late?token=query-secret`,
      waitForSelector: '#late',
      metadata: { title: 'Traced' },
    });
    expect(res.status).toBe(200);
    const pdf = await parsePdf(await bytesOf(res));
    expect(pdf.text).toContain('LATE CONTENT');
    expect(pdf.info.title).toBe('Traced');

    const server = await serverSpanOf(res.headers.get('x-request-id')!);
    expect(server.parentSpanId).toBe(''); // no traceparent sent: the trace starts here
    expect(server.name).toBe('POST /api/pdf');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/pdf',
      'http.response.status_code': 200,
    });
    const trace = await traceWith(server.traceId, [
      'render',
      'queue wait',
      'load',
      'wait waitForSelector',
      'capture',
      'post-processing',
    ]);
    const render = only(trace, 'render');
    expect(render.parentSpanId).toBe(server.spanId);
    for (const name of ['queue wait', 'load', 'wait waitForSelector', 'capture', 'post-processing'])
      expect(only(trace, name).parentSpanId, name).toBe(render.spanId);
    // The URL without its query: a query may hold a token (the same rule as the logs).
    expect(render.attributes['url.full']).toBe(`${fx.url}/late`);
    expect(otlp.bodies.join('\n')).toContain(`${fx.url}/late`);
    expect(otlp.bodies.join('\n')).not.toContain('query-secret');
    // The wait follows the load, and ends once the page's element appears: 300 ms after its script ran,
    // which is after the load began (how much of the 300 ms the load itself took varies with the machine).
    const wait = only(trace, 'wait waitForSelector');
    const load = only(trace, 'load');
    expect(wait.startNs).toBeGreaterThanOrEqual(load.endNs);
    expect(wait.endNs - load.startNs).toBeGreaterThanOrEqual(250_000_000n);
    expect(wait.startNs).toBeGreaterThanOrEqual(render.startNs);
    expect(wait.endNs).toBeLessThanOrEqual(render.endNs);
    expect(server.resource).toMatchObject({
      'service.name': 'pagewatch',
      'service.instance.id': svc.node.id,
      'pagewatch.role': 'all',
    });
    expect(typeof server.resource['service.version']).toBe('string');
    // tracing.headers go with every export, and nowhere a page shows.
    expect(otlp.exports.every((h) => h['x-collector-key'] === COLLECTOR_KEY)).toBe(true);
    expect(otlp.refused).toEqual([]);
    const docs = await (await fetch(`${svc.url}/docs`)).text();
    expect(docs).not.toContain(COLLECTOR_KEY);
  });

  it('continues an incoming traceparent, and starts a new trace for a malformed one', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const continued = await svc.post(
      '/api/image',
      { html: '<p>continued</p>', viewport: { width: 50, height: 50 } },
      { traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'vendor=kept' },
    );
    expect(continued.status).toBe(200);
    const server = await serverSpanOf(continued.headers.get('x-request-id')!);
    expect(server.traceId).toBe(traceId);
    expect(server.parentSpanId).toBe(parentId);
    const trace = await traceWith(traceId, ['render', 'capture']);
    expect(only(trace, 'render').parentSpanId).toBe(server.spanId);

    for (const malformed of [
      `00-${traceId.slice(1)}-${parentId}-01`, // a trace id one digit short
      `00-${'0'.repeat(32)}-${parentId}-01`, // the all-zero trace id W3C forbids
      `ff-${traceId}-${parentId}-01`, // version ff is invalid
      'garbage',
    ]) {
      const res = await svc.post(
        '/api/image',
        { html: '<p>malformed</p>', viewport: { width: 50, height: 50 } },
        { traceparent: malformed },
      );
      expect(res.status, malformed).toBe(200);
      const span = await serverSpanOf(res.headers.get('x-request-id')!);
      expect(span.traceId, malformed).not.toBe(traceId);
      expect(span.traceId, malformed).not.toBe('0'.repeat(32));
      expect(span.parentSpanId, malformed).toBe('');
    }
  });

  it('an async job is a trace with its queue wait, render, post-processing and storage; its webhook carries the delivery span', async () => {
    const res = await svc.call('POST', '/api/pdf', key.key, {
      html: '<h1>ASYNC TRACED</h1>',
      async: true,
      webhookUrl: hooks.url,
      metadata: { title: 'Async' },
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const job = await until('the job root span', () =>
      otlp.spans.find((s) => s.name === 'job pdf' && s.attributes['pagewatch.job.id'] === id),
    );
    expect(job.parentSpanId).toBe('');
    expect(job.attributes['pagewatch.job.attempt']).toBe(1);
    const trace = await traceWith(job.traceId, ['queue wait', 'render', 'capture', 'post-processing', 'storage']);
    const queueWait = trace.find((s) => s.name === 'queue wait' && s.parentSpanId === job.spanId);
    expect(queueWait, 'the queued → claimed span under the job').toBeDefined();
    expect(only(trace, 'render').parentSpanId).toBe(job.spanId);
    const stored = trace.filter((s) => s.name === 'storage').map((s) => s.attributes['pagewatch.stored']);
    expect(stored.sort()).toEqual(['job outcome', 'result file']);
    for (const s of trace.filter((s) => s.name === 'storage')) expect(s.parentSpanId).toBe(job.spanId);

    // The job's webhook: its delivery is a trace of its own, whose traceparent the receiver got.
    const [hit] = await hooks.waitForHits(1);
    const event = verifyHit(key.webhookSecret, hit!); // the traceparent is outside the signature
    expect(event.data).toMatchObject({ jobId: id, status: 'succeeded' });
    const delivery = await until('the delivery span', () => otlp.spans.find((s) => s.name === 'webhook delivery'));
    const [version, traceId, spanId, flags] = hit!.headers.traceparent!.split('-');
    expect(version).toBe('00');
    expect(traceId).toBe(delivery.traceId);
    expect(spanId).toBe(delivery.spanId);
    expect(flags).toBe('01');
    expect(delivery.attributes).toMatchObject({ 'http.response.status_code': 204, 'server.address': '127.0.0.1' });
    expect(delivery.status.code).not.toBe(ERROR);
    await traceWith(delivery.traceId, ['storage']);
  });

  it('a monitor capture is a trace: render, diff-less first capture and its storage, with the monitor id', async () => {
    const created = await svc.call('POST', '/api/monitors', key.key, {
      url: `${fx.url}/late`,
      schedule: '0 0 1 1 *',
      capture: { viewport: { width: 200, height: 150 }, waitForSelector: '#late' },
    });
    expect(created.status).toBe(201);
    const monitor = (await created.json()) as { id: string };
    expect((await svc.call('POST', `/api/monitors/${monitor.id}/run`, key.key)).status).toBe(202);
    const root = await until('the monitor capture span', () =>
      otlp.spans.find((s) => s.name === 'monitor capture' && s.attributes['pagewatch.monitor.id'] === monitor.id),
    );
    expect(root.parentSpanId).toBe('');
    expect(root.attributes['pagewatch.capture.reason']).toBe('manual');
    const trace = await traceWith(root.traceId, [
      'queue wait',
      'render',
      'load',
      'wait waitForSelector',
      'capture',
      'storage',
    ]);
    expect(only(trace, 'render').parentSpanId).toBe(root.spanId);
    expect(
      trace
        .filter((s) => s.name === 'storage')
        .map((s) => s.attributes['pagewatch.stored'])
        .sort(),
    ).toEqual(['capture files', 'job outcome']);
  });

  it('a failed render marks its spans ERROR with the contract error code, and nothing of its message', async () => {
    const res = await svc.post('/api/pdf', { url: `${fx.url}/late`, waitForSelector: '#never-there', timeout: 3000 });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const { error } = (await res.json()) as { error: { code: string } };
    const server = await serverSpanOf(res.headers.get('x-request-id')!);
    const trace = await traceWith(server.traceId, ['render', 'wait waitForSelector']);
    const render = only(trace, 'render');
    expect(render.status).toEqual({ code: ERROR, message: error.code });
    expect(render.attributes['error.type']).toBe(error.code);
    expect(server.attributes['error.type']).toBe(error.code);
    expect(otlp.bodies.join('\n')).toContain(server.traceId);
    expect(otlp.bodies.join('\n')).not.toContain('never-there');
  });
});
