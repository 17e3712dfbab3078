// Tracing as the process sees it: off by default (nothing sent, the SDK never loaded, even with the
// standard OTEL_* variables pointing at a collector), and on, a SIGTERM sends the last spans before exit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli, type CliService } from '../helpers/durability-cli.js';
import { startOtlpReceiver, traceOf, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { parsePdf } from '../helpers/pdf.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { sleep } from '../helpers/until.js';
import { tracingOn } from '../../src/tracing/spans.js';
import { sdkLoadedInProcess } from '../../src/tracing/start.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  cleanups.push(() => r.close());
  return r;
}

describe('tracing off (the default)', () => {
  it('sends nothing and never loads the SDK, even with OTEL_ variables set', async () => {
    const otlp = await receiver();
    // The SDK's own variables, as a container might carry them: they must not turn tracing on by themselves.
    // Set only while this service starts (the next test's child process must not inherit them).
    const OTEL = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    const before = Object.fromEntries(Object.keys(OTEL).map((name) => [name, process.env[name]]));
    Object.assign(process.env, OTEL);
    let svc: TestService;
    try {
      svc = await startTestService();
    } finally {
      for (const [name, value] of Object.entries(before))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
    cleanups.push(() => svc.close());
    const res = await svc.post(
      '/api/pdf',
      { html: '<h1>UNTRACED</h1>' },
      { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    );
    expect(res.status).toBe(200);
    expect((await parsePdf(await bytesOf(res))).text).toContain('UNTRACED');
    expect(res.headers.get('traceparent')).toBeNull();
    // Bound: 1 s is 20 of the batch delays set above and 5× the delay this service uses when on (it would
    // have sent the render's spans by then); nothing may arrive.
    await sleep(1000);
    expect(otlp.spans).toEqual([]);
    expect(otlp.refused).toEqual([]);
    expect(tracingOn()).toBe(false);
    expect(sdkLoadedInProcess()).toBe(false);
  });
});

describe('tracing on, at SIGTERM', () => {
  it("sends the last render's spans before the process exits", async () => {
    const otlp = await receiver();
    const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-tracing-'));
    cleanups.push(() => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })));
    const cli: CliService = await startCli({
      ...process.env,
      PAGEWATCH_PORT: '0',
      PAGEWATCH_HOST: '127.0.0.1',
      PAGEWATCH_DATA_DIR: dataDir,
      PAGEWATCH_TRACING_ENDPOINT: otlp.url,
      // A batch waits a minute: only the flush at shutdown can send this render's spans in time.
      PAGEWATCH_TRACING_EXPORT_DELAY_MS: '60000',
    });
    cleanups.push(() => (cli.child.exitCode === null ? Promise.resolve(cli.child.kill('SIGKILL')) : Promise.resolve()));
    const res = await fetch(`${cli.url}/api/image`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<p>last</p>', viewport: { width: 40, height: 40 } }),
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    await res.arrayBuffer();
    expect(otlp.spans).toEqual([]); // still batched
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toBe(0);
    // Sent before exit: on the receiver already, nothing waited for after.
    const server = otlp.spans.find((s) => s.attributes['pagewatch.request.id'] === requestId);
    expect(server, 'the server span of the last request').toBeDefined();
    const names = traceOf(otlp.spans, server!.traceId).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['POST /api/image', 'render', 'queue wait', 'load', 'capture']));
    expect(cli.logLines.some((l) => l.msg === 'tracing on')).toBe(true);
  });
});
