/**
 * What tracing costs a render: the service with tracing off and with tracing on (to an OTLP/HTTP receiver
 * in this process on 127.0.0.1, which reads and drops what it gets), against a baseline, in one run. The
 * services run side by side and take turns, a round of sequential renders each, so the machine's noise
 * falls on all of them alike; the figures are ratios of p50s.
 *
 *   npm run bench -- --tracing
 *   BENCH_BASELINE_CLI=/path/to/a/build/of/the/commit/before/dist/src/cli.js npm run bench -- --tracing
 *
 * The baseline is that build when BENCH_BASELINE_CLI names one (the service without the tracing code),
 * else a second service of this build with tracing off (then `offVsBaseline` shows the run's own noise).
 * Env: BENCH_TRACING_ROUNDS (6) rounds, BENCH_SEQ (40) renders per service, format and round... split over
 * the rounds. Also times the seam itself with tracing off (ns per inSpan call against calling the work).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { invoiceHtml } from './invoice-html.js';
import { log } from './measure.js';
import { serviceRenderer, startService, type ServiceHandle } from './service.js';
import { percentile, round1 } from './stats.js';
import type { Format } from './raw.js';
import { inSpan } from '../src/tracing/spans.js';

interface Receiver {
  url: string;
  spans: number;
  close(): Promise<void>;
}

/** A collector stand-in: takes OTLP/HTTP JSON exports, counts their spans, answers 200. */
async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', spans: 0, close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { scopeSpans: { spans?: unknown[] }[] }[];
      };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) receiver.spans += ss.spans?.length ?? 0;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () => new Promise((done) => server.close(() => done()));
  return receiver;
}

/** ns per call of inSpan with tracing off, over calling the same async work directly. */
async function seamCostNs(calls = 200_000): Promise<number> {
  const work = () => Promise.resolve(1);
  const time = async (fn: () => Promise<number>) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await fn();
    return Number(process.hrtime.bigint() - t0) / calls;
  };
  await time(work); // warm both paths up
  await time(() => inSpan('x', {}, work));
  const direct = await time(work);
  const seam = await time(() => inSpan('x', {}, work));
  return seam - direct;
}

export async function measureTracing(): Promise<Record<string, unknown>> {
  const rounds = Number(process.env.BENCH_TRACING_ROUNDS ?? 6);
  const perRound = Math.max(1, Math.ceil(Number(process.env.BENCH_SEQ ?? 40) / rounds));
  const baselineCli = process.env.BENCH_BASELINE_CLI;
  const receiver = await startReceiver();
  const services: Record<'baseline' | 'off' | 'on', ServiceHandle | undefined> = {
    baseline: undefined,
    off: undefined,
    on: undefined,
  };
  try {
    services.baseline = await startService({}, 60_000, baselineCli);
    services.off = await startService();
    services.on = await startService({ PAGEWATCH_TRACING_ENDPOINT: receiver.url });
    const names = ['baseline', 'off', 'on'] as const;
    const samples: Record<string, number[]> = {};
    const formats: Format[] = ['png', 'pdf'];
    for (const name of names)
      for (const format of formats) {
        const render = serviceRenderer(services[name]!.baseUrl, invoiceHtml, format);
        for (let i = 0; i < 5; i++) await render(0); // warm pages, fonts, the JIT
        samples[`${name}.${format}`] = [];
      }
    for (let round = 0; round < rounds; round++) {
      log(`tracing bench: round ${round + 1} of ${rounds}`);
      // Each round in another order, so no service always follows the same one.
      const order = names.map((_, i) => names[(i + round) % names.length]!);
      for (const name of order)
        for (const format of formats) {
          const render = serviceRenderer(services[name]!.baseUrl, invoiceHtml, format);
          for (let i = 0; i < perRound; i++) {
            const t0 = performance.now();
            await render(0);
            samples[`${name}.${format}`]!.push(performance.now() - t0);
          }
        }
    }
    const p50 = (key: string) => percentile(samples[key]!, 50);
    const ratio = (a: string, b: string) => Math.round((p50(a) / p50(b)) * 1000) / 1000;
    return {
      tracing: {
        baseline: baselineCli ? 'BENCH_BASELINE_CLI' : 'this build, tracing off',
        rendersPerService: rounds * perRound,
        p50Ms: Object.fromEntries(Object.keys(samples).map((k) => [k, round1(p50(k))])),
        offVsBaseline: { png: ratio('off.png', 'baseline.png'), pdf: ratio('off.pdf', 'baseline.pdf') },
        onVsOff: { png: ratio('on.png', 'off.png'), pdf: ratio('on.pdf', 'off.pdf') },
        spansReceived: receiver.spans,
        seamOffNsPerCall: round1(await seamCostNs()),
      },
    };
  } finally {
    await Promise.all(Object.values(services).map((s) => s?.stop() ?? Promise.resolve()));
    await receiver.close();
  }
}
