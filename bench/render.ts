/**
 * Render benchmark: raw Playwright (warm page / new context per render) vs the
 * pagewatch service over HTTP, on the same invoice page, PNG and PDF, from three sources: the invoice as
 * HTML, the same with a one-line script, and the invoice as a URL on a loopback fixture (`goal` in the JSON),
 * each also beside the least a render on a fresh Document can cost (`floor`: the bare page unloaded first).
 *
 *   npm run bench                      # full run (builds first)
 *   BENCH_SKIP_SERVICE=1 node dist/bench/render.js        # raw Playwright only
 *   BENCH_SECONDS=2 BENCH_SEQ=10 BENCH_RSS_RENDERS=150 node dist/bench/render.js   # smoke
 *
 * Env: BENCH_SECONDS (8) throughput window per concurrency level, BENCH_WARMUP_SECONDS (1),
 * BENCH_SEQ (40) sequential samples, BENCH_SEQ_WARMUP (5), BENCH_RSS_RENDERS (1000, >= 100),
 * BENCH_RSS_MIXED_RENDERS (10000; 0 skips) more renders of every source and format before the last memory sample,
 * BENCH_SKIP_SERVICE=1, BENCH_ASYNC_JOBS (200) async jobs per round, BENCH_ASYNC_ROUNDS (2),
 * BENCH_MONITORS (200) monitors on a one-minute schedule, BENCH_MONITOR_MINUTES (3) minutes measured,
 * PAGEWATCH_CHROMIUM_PATH (default: the Chromium the service finds).
 *
 *   npm run bench -- --render          # only the renders: raw Playwright and the service, round trips, memory
 *   npm run bench -- --round-trips     # only the browser round trips per render and wipe (a minute)
 *   npm run bench -- --diff            # only the detection corpus (bench/diff-corpus.ts)
 *   npm run bench -- --upload          # only an upload of 20 assets beside the same page from a URL (bench/upload.ts)
 *   npm run bench -- --pdf             # only the PDF engine: each finishing option's added p50, peak memory
 *   npm run bench -- --tracing         # only what tracing costs a render, off and on (bench/tracing.ts)
 *   npm run bench -- --queue           # only the queue's claims/s (bench/queue.ts) and a keyed request's
 *                                      # database work (bench/keyed-request-db.ts), PostgreSQL beside SQLite
 *
 * Prints exactly one JSON line on stdout; progress goes to stderr.
 */
import type { Browser } from 'playwright';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { invoiceHtml, scriptedInvoiceHtml } from './invoice-html.js';
import { log, measureAll, type Figures, type MeasureConfig, type RenderFn } from './measure.js';
import { treeMemoryMiB } from './process-tree.js';
import { pssByKind } from './process-kinds.js';
import { measureRoundTrips, type RoundTrips } from './round-trips.js';
import {
  launchRaw,
  launchRawWithServiceFeatures,
  openWarmPages,
  rawFreshDocumentRenderer,
  rawNewContextRenderer,
  rawWarmRenderer,
  rawWarmUrlRenderer,
  type Format,
} from './raw.js';
import { ASYNC_BENCH_ENV, measureAsyncJobs, type AsyncFigures } from './async-jobs.js';
import { measureDiff, type DiffFigures } from './diff.js';
import { measureDiffCorpus } from './diff-corpus.js';
import { measureKeyedRequestDb } from './keyed-request-db.js';
import { measureQueue } from './queue.js';
import { measurePdfFinishing } from './pdf-finishing.js';
import { measureUpload } from './upload.js';
import { measureTracing } from './tracing.js';
import { MONITOR_BENCH_ENV, measureMonitors, type MonitorFigures } from './monitors.js';
import { serviceRenderer, startService, type ServiceHandle } from './service.js';
import { round1, round1OrNull } from './stats.js';

function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

const cfg: MeasureConfig & {
  rssRenders: number;
  mixedRenders: number;
  skipService: boolean;
  asyncJobs: number;
  asyncRounds: number;
  monitors: number;
  monitorMinutes: number;
} = {
  seconds: envNumber('BENCH_SECONDS', 8, 0.1),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 1, 0),
  seq: Math.floor(envNumber('BENCH_SEQ', 40, 1)),
  seqWarmup: Math.floor(envNumber('BENCH_SEQ_WARMUP', 5, 0)),
  rssRenders: Math.floor(envNumber('BENCH_RSS_RENDERS', 1000, 100)),
  mixedRenders: Math.floor(envNumber('BENCH_RSS_MIXED_RENDERS', 10_000, 0)),
  skipService: process.env.BENCH_SKIP_SERVICE === '1',
  asyncJobs: Math.floor(envNumber('BENCH_ASYNC_JOBS', 200, 1)),
  asyncRounds: Math.floor(envNumber('BENCH_ASYNC_ROUNDS', 2, 1)),
  monitors: Math.floor(envNumber('BENCH_MONITORS', 200, 1)),
  monitorMinutes: Math.floor(envNumber('BENCH_MONITOR_MINUTES', 3, 1)),
};

const FORMATS: readonly Format[] = ['png', 'pdf'];
/** The URL rows' fixture is on 127.0.0.1, which the egress policy refuses unless allowed. */
const LOOPBACK_ALLOWED = { PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]' };
const MAX_CLIENTS = 8;

// Everything that must be torn down on any exit path, most recent first.
const cleanups = new Set<() => Promise<void>>();
async function runCleanups(): Promise<void> {
  for (const fn of [...cleanups].reverse()) {
    cleanups.delete(fn);
    try {
      await fn();
    } catch (err) {
      log(`cleanup failed: ${String(err)}`);
    }
  }
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: cleaning up`);
    void runCleanups().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  });
}

type ModeFigures = { rawWarm: Figures; rawNewContext: Figures; service: Figures | null };
type RawFigures = Record<Format, Omit<ModeFigures, 'service'> & { rawWarmScripted: Figures; rawWarmUrl: Figures }>;
/** The bare page on a fresh Document every render (bench/raw.ts (f)), per source. */
type FloorFigures = Record<Format, Record<'inert' | 'scripted' | 'url', Figures>>;

/**
 * The invoice as a URL: served by a loopback fixture (the service reaches it through its egress proxy,
 * with 127.0.0.1 allowed; raw Playwright directly).
 */
async function startInvoiceSite(): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(invoiceHtml);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/invoice`;
}

async function measureRaw(invoiceUrl: string): Promise<{ version: string; figures: RawFigures }> {
  log('launching raw Chromium');
  const browser: Browser = await launchRaw();
  const close = async (): Promise<void> => browser.close();
  cleanups.add(close);
  try {
    const version = browser.version();
    const pages = await openWarmPages(browser, MAX_CLIENTS, invoiceHtml);
    const figures = {} as RawFigures;
    for (const format of FORMATS) {
      const warm = (html: string) => rawWarmRenderer(pages, html, format);
      const rawWarm = await measureAll(`${format} rawWarm`, warm(invoiceHtml), cfg, process.pid);
      const rawWarmScripted = await measureAll(`${format} rawWarm scripted`, warm(scriptedInvoiceHtml), cfg);
      const rawWarmUrl = await measureAll(`${format} rawWarm url`, rawWarmUrlRenderer(pages, invoiceUrl, format), cfg);
      const rawNewContext = await measureAll(
        `${format} rawNewContext`,
        rawNewContextRenderer(browser, invoiceHtml, format),
        cfg,
      );
      figures[format] = { rawWarm, rawWarmScripted, rawWarmUrl, rawNewContext };
    }
    return { version, figures };
  } finally {
    cleanups.delete(close);
    await close();
    log('raw Chromium closed');
  }
}

/**
 * The floor under the goal: the bare page unloaded to `about:blank` before every render, in a Chromium
 * with the service's features. A render that must start on a fresh Document cannot cost less; a goal row
 * this floor misses cannot be met by any wipe.
 */
async function measureFloor(invoiceUrl: string): Promise<FloorFigures> {
  log('launching raw Chromium with the service features (the fresh-document floor)');
  const browser = await launchRawWithServiceFeatures();
  const close = async (): Promise<void> => browser.close();
  cleanups.add(close);
  try {
    const pages = await openWarmPages(browser, MAX_CLIENTS, invoiceHtml);
    const floor = {} as FloorFigures;
    for (const format of FORMATS) {
      const fresh = (name: string, load: Parameters<typeof rawFreshDocumentRenderer>[1]) =>
        measureAll(`${format} floor ${name}`, rawFreshDocumentRenderer(pages, load, format), cfg);
      floor[format] = {
        inert: await fresh('inert', (page) => page.setContent(invoiceHtml)),
        scripted: await fresh('scripted', (page) => page.setContent(scriptedInvoiceHtml)),
        url: await fresh('url', (page) => page.goto(invoiceUrl)),
      };
    }
    return floor;
  } finally {
    cleanups.delete(close);
    await close();
  }
}

async function withService<T>(fn: (svc: ServiceHandle) => Promise<T>, env: Record<string, string> = {}): Promise<T> {
  log('starting service');
  const t0 = performance.now();
  const svc = await startService(env);
  log(`service ready at ${svc.baseUrl} (pid ${svc.pid}) after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const stop = () => svc.stop();
  cleanups.add(stop);
  try {
    return await fn(svc);
  } finally {
    cleanups.delete(stop);
    await svc.stop();
  }
}

/** Exactly `total` renders shared among `clients` concurrent loops; first failure stops all. */
async function renderCount(render: RenderFn, total: number, clients: number): Promise<void> {
  let issued = 0;
  let failure: { err: unknown } | undefined;
  const loop = async (client: number): Promise<void> => {
    while (!failure && issued < total) {
      issued++;
      try {
        await render(client);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, i) => loop(i)));
  if (failure) throw failure.err;
}

interface MemorySample {
  rss: number;
  pss: number;
  byKind: ReturnType<typeof pssByKind>;
}

async function measureRss(invoiceUrl: string): Promise<{
  idle: MemorySample;
  after100: MemorySample;
  after1000: MemorySample;
  afterMixed: MemorySample | null;
  renders: number;
  mixedRenders: number;
}> {
  // Fresh service process so "after N renders" counts from startup.
  return withService(async (svc) => {
    const render = serviceRenderer(svc.baseUrl, invoiceHtml, 'png');
    const sample = async (label: string): Promise<MemorySample> => {
      await sleep(500); // let in-flight cleanup (closed contexts, GC) settle a little
      const { rss, pss, processes } = treeMemoryMiB(svc.pid);
      const byKind = pssByKind(svc.pid);
      log(`memory ${label}: RSS ${rss.toFixed(1)} MiB, PSS ${pss.toFixed(1)} MiB over ${processes} processes`);
      log(`memory ${label}: PSS by kind ${JSON.stringify(byKind)}`);
      return { rss, pss, byKind };
    };
    const idle = await sample('idle (ready)');
    await renderCount(render, 100, 4);
    const after100 = await sample('after 100 png renders');
    await renderCount(render, cfg.rssRenders - 100, 4);
    const after1000 = await sample(`after ${cfg.rssRenders} png renders`);
    let afterMixed: MemorySample | null = null;
    if (cfg.mixedRenders > 0) {
      // Every source and format in turn: inert and scripted HTML and the URL, as PNG and as PDF.
      const mixed = FORMATS.flatMap((f) =>
        [invoiceHtml, scriptedInvoiceHtml, { url: invoiceUrl }].map((source) =>
          serviceRenderer(svc.baseUrl, source, f),
        ),
      );
      let next = 0;
      await renderCount(() => mixed[next++ % mixed.length]!(0), cfg.mixedRenders, 4);
      afterMixed = await sample(`after ${cfg.mixedRenders} more mixed renders`);
    }
    return { idle, after100, after1000, afterMixed, renders: cfg.rssRenders, mixedRenders: cfg.mixedRenders };
  }, LOOPBACK_ALLOWED);
}

const r1 = (f: Figures): Figures => ({
  p50: round1(f.p50),
  p95: round1(f.p95),
  rps4: round1(f.rps4),
  rps8: round1(f.rps8),
  ...(f.cpuMsPerRender && { cpuMsPerRender: f.cpuMsPerRender }),
});

/**
 * What a warm page costs: each is a context with a renderer process of its own, so a renderer's PSS. (There
 * are usually more renderers than warm pages: Chromium's spare, and pages on their way out after
 * render.pageMaxUses renders, which is why the figure is per renderer and not the sum over the pages.)
 */
function pssPerWarmPage(sample: MemorySample): number | null {
  const renderers = sample.byKind.renderer;
  return renderers ? round1(renderers.mib / renderers.processes) : null;
}

async function main(): Promise<void> {
  // Other work on the machine skews every figure; the 1-minute load average before/after shows it.
  const loadBefore = loadavg()[0] ?? 0;
  log(`config ${JSON.stringify(cfg)}; invoice HTML ${invoiceHtml.length} bytes; load ${loadBefore.toFixed(2)}`);
  const invoiceUrl = await startInvoiceSite();
  // The floor's browser starts once the first one is closed, so the two never share the machine.
  const raw = { ...(await measureRaw(invoiceUrl)), floor: await measureFloor(invoiceUrl) };

  const service: Record<Format, Figures | null> = { png: null, pdf: null };
  const serviceScripted: Record<Format, Figures | null> = { png: null, pdf: null };
  const serviceUrl: Record<Format, Figures | null> = { png: null, pdf: null };
  let roundTrips: Record<string, RoundTrips> | null = null;
  let rss: Awaited<ReturnType<typeof measureRss>> | null = null;
  let asyncJobs: AsyncFigures | null = null;
  let monitors: MonitorFigures | null = null;
  const rendersOnly = process.argv.includes('--render');
  let diff: DiffFigures | null = null;
  if (!rendersOnly) {
    log('diff: 1280x10000 pair and identical pair');
    diff = await measureDiff();
  }
  if (!cfg.skipService) {
    await withService(async (svc) => {
      for (const format of FORMATS) {
        const renderer = (html: string) => serviceRenderer(svc.baseUrl, html, format);
        service[format] = await measureAll(`${format} service`, renderer(invoiceHtml), cfg, svc.pid);
        serviceScripted[format] = await measureAll(`${format} service scripted`, renderer(scriptedInvoiceHtml), cfg);
        const byUrl = serviceRenderer(svc.baseUrl, { url: invoiceUrl }, format);
        serviceUrl[format] = await measureAll(`${format} service url`, byUrl, cfg, svc.pid);
      }
    }, LOOPBACK_ALLOWED);
    roundTrips = await measureRoundTrips({ inert: invoiceHtml, scripted: scriptedInvoiceHtml }, FORMATS);
    rss = await measureRss(invoiceUrl);
    if (!rendersOnly) {
      asyncJobs = await withService(
        (svc) => measureAsyncJobs(svc, invoiceHtml, cfg.asyncJobs, cfg.asyncRounds),
        ASYNC_BENCH_ENV,
      );
      monitors = await withService(
        (svc) => measureMonitors(svc, cfg.monitors, cfg.monitorMinutes, cfg.seconds * 2),
        MONITOR_BENCH_ENV,
      );
    }
  }

  const ratio = (a: number | undefined, b: number | undefined): number | null =>
    a === undefined || b === undefined || b === 0 ? null : a / b;
  const pngP50 = ratio(service.png?.p50, raw.figures.png.rawWarm.p50);
  const pdfP50 = ratio(service.pdf?.p50, raw.figures.pdf.rawWarm.p50);
  const pngRps8 = ratio(service.png?.rps8, raw.figures.png.rawNewContext.rps8);
  const pdfRps8 = ratio(service.pdf?.rps8, raw.figures.pdf.rawNewContext.rps8);
  // The goal: the service beside a bare warm page (raw Playwright re-using a page and wiping nothing).
  const pngRps8Warm = ratio(service.png?.rps8, raw.figures.png.rawWarm.rps8);
  const pdfRps8Warm = ratio(service.pdf?.rps8, raw.figures.pdf.rawWarm.rps8);
  const scriptedRatios = (f: Format) => ({
    p50: round1OrNull(ratio(serviceScripted[f]?.p50, raw.figures[f].rawWarmScripted.p50)),
    rps8: round1OrNull(ratio(serviceScripted[f]?.rps8, raw.figures[f].rawWarmScripted.rps8)),
  });
  // Targets are judged on unrounded ratios.
  const both = (a: number | null, b: number | null, ok: (x: number) => boolean): boolean | null =>
    a === null || b === null ? null : ok(a) && ok(b);

  // The goal, row by row: each source and format beside the bare warm page given the same source.
  const rowsOf = {
    inert: [service, 'rawWarm'],
    scripted: [serviceScripted, 'rawWarmScripted'],
    url: [serviceUrl, 'rawWarmUrl'],
  } as const;
  const goalRow = (f: Format, source: keyof typeof rowsOf) => {
    const [serviceFigures, bareKey] = rowsOf[source];
    const [svc, bare] = [serviceFigures[f], raw.figures[f][bareKey]];
    const p50 = ratio(svc?.p50, bare.p50);
    const rps8 = ratio(svc?.rps8, bare.rps8);
    const p50Limit = source === 'url' ? 1.3 : 1.5;
    const meets = (a: number | null, b: number | null) => (a === null || b === null ? null : a <= p50Limit && b >= 0.6);
    const r2 = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);
    // The fresh-document floor beside the same bare page: whether the row can be met at all.
    const floor = raw.floor[f][source];
    const [floorP50, floorRps8] = [ratio(floor.p50, bare.p50), ratio(floor.rps8, bare.rps8)];
    return {
      p50: r2(p50),
      rps8: r2(rps8),
      p50Limit,
      met: meets(p50, rps8),
      floor: { p50: r2(floorP50), rps8: r2(floorRps8), reachable: meets(floorP50, floorRps8) },
    };
  };
  const goalRows = Object.fromEntries(
    FORMATS.flatMap((f) =>
      (Object.keys(rowsOf) as (keyof typeof rowsOf)[]).map((src) => [`${src}-${f}`, goalRow(f, src)]),
    ),
  );
  const section = (f: Format): Record<string, Figures | null> => ({
    rawWarm: r1(raw.figures[f].rawWarm),
    rawNewContext: r1(raw.figures[f].rawNewContext),
    service: service[f] ? r1(service[f]) : null,
  });
  // The same invoice with a script: the service unloads the page after each render.
  const scripted = (f: Format) => ({
    rawWarm: r1(raw.figures[f].rawWarmScripted),
    service: serviceScripted[f] ? r1(serviceScripted[f]) : null,
    ratios: scriptedRatios(f),
  });
  const out = {
    bench: 'render',
    chromium: raw.version,
    cpus: availableParallelism(),
    png: section('png'),
    pdf: section('pdf'),
    scripted: { png: scripted('png'), pdf: scripted('pdf') },
    // The invoice as a URL from a loopback fixture: the bare page navigates to it, as the service does.
    url: {
      png: { rawWarm: r1(raw.figures.png.rawWarmUrl), service: serviceUrl.png ? r1(serviceUrl.png) : null },
      pdf: { rawWarm: r1(raw.figures.pdf.rawWarmUrl), service: serviceUrl.pdf ? r1(serviceUrl.pdf) : null },
    },
    // Each source and format beside the bare warm page: p50 ratio (limit 1.5 for HTML, 1.3 for a URL) and
    // 8-client throughput ratio (at least 0.6).
    goal: goalRows,
    // The bare page on a fresh Document every render (an unload to about:blank first; RenderDocument off).
    floor: Object.fromEntries(
      FORMATS.map((f) => [f, Object.fromEntries(Object.entries(raw.floor[f]).map(([k, v]) => [k, r1(v)]))]),
    ),
    ratios: {
      pngP50ServiceOverRawWarm: round1OrNull(pngP50),
      pdfP50ServiceOverRawWarm: round1OrNull(pdfP50),
      pngRps8ServiceOverRawWarm: round1OrNull(pngRps8Warm),
      pdfRps8ServiceOverRawWarm: round1OrNull(pdfRps8Warm),
      pngRps8ServiceOverRawNewContext: round1OrNull(pngRps8),
      pdfRps8ServiceOverRawNewContext: round1OrNull(pdfRps8),
    },
    // Summed VmRSS as specified; after1000 is taken after BENCH_RSS_RENDERS renders (see "renders").
    rssMiB: rss
      ? {
          after100: round1(rss.after100.rss),
          after1000: round1(rss.after1000.rss),
          idle: round1(rss.idle.rss),
          renders: rss.renders,
        }
      : null,
    // Same samples as proportional set size (shared pages split between processes).
    pssMiB: rss
      ? {
          after100: round1(rss.after100.pss),
          after1000: round1(rss.after1000.pss),
          idle: round1(rss.idle.pss),
          perWarmPage: pssPerWarmPage(rss.after1000),
          byKindAfter1000: rss.after1000.byKind,
          // After BENCH_RSS_MIXED_RENDERS more renders of every source and format (see mixedRenders).
          afterMixed: rss.afterMixed ? round1(rss.afterMixed.pss) : null,
          perWarmPageAfterMixed: rss.afterMixed ? pssPerWarmPage(rss.afterMixed) : null,
          byKindAfterMixed: rss.afterMixed?.byKind ?? null,
          mixedRenders: rss.mixedRenders,
        }
      : null,
    // Browser round trips (CDP messages) per render and per wipe, inert and scripted invoice.
    roundTrips,
    // N async PNG jobs until the last webhook vs N synchronous PNG renders, same service, same run.
    asyncJobs: asyncJobs
      ? {
          jobs: asyncJobs.jobs,
          syncMs: asyncJobs.syncMs.map(Math.round),
          asyncMs: asyncJobs.asyncMs.map(Math.round),
          ratio: Math.round(asyncJobs.ratio * 100) / 100,
          submitP50Ms: round1(asyncJobs.submitP50Ms),
        }
      : null,
    // Monitors: a full-page pair's diff and the main thread's event-loop delay meanwhile; an identical pair.
    diff,
    // N monitors on a one-minute schedule against a local site, and sync renders of the same page.
    monitors,
    targets: {
      allSixRowsMet: Object.values(goalRows).every((row) => row.met === true),
      allSixRowsReachable: Object.values(goalRows).every((row) => row.floor.reachable === true),
      'p50VsBareWarm<=1.5': both(pngP50, pdfP50, (x) => x <= 1.5),
      'rps8VsBareWarm>=0.6': both(pngRps8Warm, pdfRps8Warm, (x) => x >= 0.6),
      'p50Ratio<=1.3': both(pngP50, pdfP50, (x) => x <= 1.3),
      'diffLoopMaxDelay<50ms': diff ? diff.diffLargeLoopMaxDelayMs < 50 : null,
      'diffIdentical<10ms': diff ? diff.diffIdenticalP95Ms < 10 : null,
      'rps8Ratio>=4': both(pngRps8, pdfRps8, (x) => x >= 4),
      'asyncRatio<=1.1': asyncJobs ? asyncJobs.ratio <= 1.1 : null,
    },
    config: {
      seconds: cfg.seconds,
      warmupSeconds: cfg.warmupSeconds,
      seq: cfg.seq,
      seqWarmup: cfg.seqWarmup,
      htmlBytes: invoiceHtml.length,
      loadAvg1: [round1(loadBefore), round1(loadavg()[0] ?? 0)],
    },
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

try {
  if (process.argv.includes('--diff')) process.stdout.write(`${JSON.stringify(await measureDiffCorpus())}\n`);
  else if (process.argv.includes('--round-trips'))
    process.stdout.write(
      `${JSON.stringify(await measureRoundTrips({ inert: invoiceHtml, scripted: scriptedInvoiceHtml }, FORMATS))}\n`,
    );
  else if (process.argv.includes('--upload'))
    process.stdout.write(`${JSON.stringify({ upload: await measureUpload(cfg.seq, cfg.seqWarmup) })}\n`);
  else if (process.argv.includes('--pdf'))
    process.stdout.write(`${JSON.stringify({ pdfFinishing: await measurePdfFinishing() })}\n`);
  else if (process.argv.includes('--tracing')) process.stdout.write(`${JSON.stringify(await measureTracing())}\n`);
  else if (process.argv.includes('--queue'))
    process.stdout.write(`${JSON.stringify({ ...(await measureQueue()), ...(await measureKeyedRequestDb()) })}\n`);
  else await main();
} catch (err) {
  log(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await runCleanups();
}
