/**
 * Detection corpus benchmark: every pair of test/fixtures/diff-corpus through the real service's monitor
 * pipeline with the default settings (a case's manifest entry adds settings only where the case is about
 * one, e.g. ignoreSelectors). For each case: a paused monitor, a manual capture of a.html (the baseline),
 * the site switched to b.html, a second manual capture; the verdict is whether that capture would be told as
 * a change: succeeded, changed, and its notifyWhen rules met (if it has any). A suspect or filter_missing
 * capture (a bot check, a filter that matched nothing) is not a change. A case that cannot be run (its
 * settings refused, a capture failed) is listed in `errors` and among the misclassified cases, and counted
 * in neither the true nor the false figures.
 *
 *   npm run bench -- --diff
 *   BENCH_DIFF_CONCURRENCY=2 BENCH_DIFF_ROUNDS=2 node dist/bench/render.js --diff
 *
 * Env: BENCH_DIFF_CONCURRENCY (2) cases in flight, BENCH_DIFF_ROUNDS (1) times each case is run from the
 * start with a new monitor (a case is misclassified if any run is), BENCH_DIFF_ONLY (comma-separated names).
 * Prints exactly one JSON line on stdout: the confusion matrix, the misclassified cases and timing.
 */
import { performance } from 'node:perf_hooks';
import { clustersOf } from '../src/diff/pixels/compare.js';
import { MIN_REGION_PIXELS, MIN_STRONG_PIXELS } from '../src/diff/pixels/regions.js';
import { loadCorpus, startCorpusSite, type CorpusCase, type CorpusSite } from '../test/fixtures/diff-corpus/corpus.js';
import { createKey } from './async-jobs.js';
import { log } from './measure.js';
import { MONITOR_BENCH_ENV } from './monitors.js';
import { startService, type ServiceHandle } from './service.js';
import { percentile } from './stats.js';

interface Capture {
  id: string;
  status: string;
  changed: boolean;
  confirmed: boolean;
  diffPixels: number;
  regions: { pixels?: number }[];
  conditionsMet?: boolean | null;
  error?: { code?: string; message?: string };
}

/** What a second capture may be: a verdict either way. A failed capture is no verdict. */
const VERDICT_STATUSES = ['succeeded', 'suspect', 'filter_missing'];

/** Whether the capture is told as a change (monitor.changed). */
const reported = (c: Capture): boolean => c.status === 'succeeded' && c.changed && c.conditionsMet !== false;

interface Verdict {
  name: string;
  kind: CorpusCase['kind'];
  changed: boolean[];
  ms: number;
  detail: string;
  nearest?: Nearest;
}

/** The cluster of a case closest to being a change: score >= 1 is significant (both counts at or over the rule). */
interface Nearest {
  pixels: number;
  strong: number;
  score: number;
}

const score = (c: { pixels: number; strong: number }): number =>
  Math.min(c.pixels / MIN_REGION_PIXELS, c.strong / MIN_STRONG_PIXELS);

async function imageOf(svc: ServiceHandle, key: string, captureId: string): Promise<Buffer> {
  const res = await fetch(`${svc.baseUrl}/api/captures/${captureId}/image`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`image of ${captureId} -> ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/**
 * The margin: the baseline and the last capture compared again here, every cluster scored. Only for cases on
 * default diff settings (an ignoreSelectors box is measured by the page, which this does not have).
 */
async function nearest(
  svc: ServiceHandle,
  key: string,
  c: CorpusCase,
  baselineId: string,
  lastId: string,
): Promise<Nearest | undefined> {
  if (c.diff && Object.keys(c.diff).some((k) => k !== 'ignoreRegions')) return undefined;
  const [a, b] = await Promise.all([imageOf(svc, key, baselineId), imageOf(svc, key, lastId)]);
  const ignore = (c.diff?.ignoreRegions ?? []) as { x: number; y: number; width: number; height: number }[];
  const clusters = clustersOf(a, b, { threshold: 0.1, includeAA: false, ignore });
  const best = clusters.sort((x, y) => score(y) - score(x))[0];
  return best
    ? { pixels: best.pixels, strong: best.strong, score: Math.round(score(best) * 100) / 100 }
    : { pixels: 0, strong: 0, score: 0 };
}

function envInt(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
}

async function call<T>(
  svc: ServiceHandle,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

/** Run the monitor now and wait (polling) for the capture it records. */
async function captureNow(
  svc: ServiceHandle,
  key: string,
  monitorId: string,
  before: string | undefined,
  accept: readonly string[] = ['succeeded'],
): Promise<Capture> {
  const run = await call(svc, key, 'POST', `/api/monitors/${monitorId}/run`);
  if (run.status !== 202) throw new Error(`run ${monitorId} -> ${run.status} ${JSON.stringify(run.body)}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const list = await call<{ items: Capture[] }>(svc, key, 'GET', `/api/monitors/${monitorId}/captures?limit=1`);
    const latest = list.body.items[0];
    if (latest && latest.id !== before) {
      if (!accept.includes(latest.status))
        throw new Error(`capture of ${monitorId} is ${latest.status}: ${JSON.stringify(latest.error)}`);
      return latest;
    }
    if (Date.now() > deadline) throw new Error(`no capture of ${monitorId} within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One run of a case: a new monitor, the baseline on a.html, the verdict on b.html. */
async function runOnce(
  svc: ServiceHandle,
  key: string,
  site: CorpusSite,
  c: CorpusCase,
): Promise<{ last: Capture; baselineId: string }> {
  site.reset(c.name);
  const created = await call<{ id: string }>(svc, key, 'POST', '/api/monitors', {
    name: c.name,
    url: site.pageUrl(c.name),
    schedule: '0 0 1 1 *',
    paused: true,
    ...(c.capture && { capture: c.capture }),
    ...(c.diff && { diff: c.diff }),
    ...(c.notifyWhen && { notifyWhen: c.notifyWhen }),
  });
  if (created.status !== 201)
    throw new Error(`create monitor ${c.name} -> ${created.status} ${JSON.stringify(created.body)}`);
  const monitorId = created.body.id;
  const baseline = await captureNow(svc, key, monitorId, undefined);
  site.switchToB(c.name);
  const last = await captureNow(svc, key, monitorId, baseline.id, VERDICT_STATUSES);
  return { last, baselineId: baseline.id };
}

async function runCase(
  svc: ServiceHandle,
  key: string,
  site: CorpusSite,
  c: CorpusCase,
  rounds: number,
): Promise<Verdict> {
  const started = performance.now();
  const changed: boolean[] = [];
  const details: string[] = [];
  let run: { last: Capture; baselineId: string } | undefined;
  for (let i = 0; i < rounds; i++) {
    run = await runOnce(svc, key, site, c);
    const { last } = run;
    changed.push(reported(last));
    details.push(
      `${last.status === 'succeeded' ? '' : `${last.status} (${last.error?.code}) `}changed=${last.changed} ` +
        `confirmed=${last.confirmed} diffPixels=${last.diffPixels} ` +
        `regions=${JSON.stringify(last.regions.map((r) => r.pixels))}` +
        (last.conditionsMet === undefined || last.conditionsMet === null ? '' : ` conditionsMet=${last.conditionsMet}`),
    );
  }
  const ms = (performance.now() - started) / rounds;
  // Only between two pictures of pages that were compared: another content type's picture may not say what
  // changed, and a suspect or filter_missing capture was never held to the pixel rule.
  const compared = !c.file && run!.last.status === 'succeeded';
  const near = compared ? await nearest(svc, key, c, run!.baselineId, run!.last.id) : undefined;
  return {
    name: c.name,
    kind: c.kind,
    changed,
    ms,
    detail: `${details.join('; ')}; nearest ${JSON.stringify(near)}`,
    nearest: near,
  };
}

export async function measureDiffCorpus(): Promise<Record<string, unknown>> {
  const concurrency = envInt('BENCH_DIFF_CONCURRENCY', 2);
  const rounds = envInt('BENCH_DIFF_ROUNDS', 1);
  const only = process.env.BENCH_DIFF_ONLY?.split(',').filter(Boolean);
  const cases = loadCorpus().filter((c) => !only || only.includes(c.name));
  const site = await startCorpusSite();
  const svc = await startService({ ...MONITOR_BENCH_ENV });
  try {
    const key = createKey(svc.dataDir);
    const started = performance.now();
    const queue = [...cases];
    const verdicts: Verdict[] = [];
    const errors: { name: string; error: string }[] = [];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let c = queue.shift(); c; c = queue.shift()) {
          let v: Verdict;
          try {
            v = await runCase(svc, key, site, c, rounds);
          } catch (err) {
            // Its settings refused, a capture failed: no verdict, said as such rather than ending the run.
            const error = (err as Error).message.slice(0, 300);
            log(`ERR  ${c.kind.padEnd(6)} ${c.name}: ${error}`);
            errors.push({ name: c.name, error });
            continue;
          }
          const ok = v.kind === 'change' ? v.changed.every(Boolean) : !v.changed.some(Boolean);
          log(`${ok ? 'ok  ' : 'MISS'} ${v.kind.padEnd(6)} ${v.name}: ${v.detail} (${Math.round(v.ms)} ms)`);
          verdicts.push(v);
        }
      }),
    );
    const totalMs = performance.now() - started;
    const changes = verdicts.filter((v) => v.kind === 'change');
    const noise = verdicts.filter((v) => v.kind === 'noise');
    const truePositives = changes.filter((v) => v.changed.every(Boolean)).length;
    const trueNegatives = noise.filter((v) => !v.changed.some(Boolean)).length;
    const misclassified = verdicts
      .filter((v) => (v.kind === 'change' ? !v.changed.every(Boolean) : v.changed.some(Boolean)))
      .map((v) => v.name)
      .concat(errors.map((e) => e.name))
      .sort();
    const caseMs = verdicts.map((v) => v.ms);
    // How close the corpus comes to the rule: the noise cluster nearest to counting, the change furthest from it.
    const scored = (kind: CorpusCase['kind']) =>
      verdicts
        .filter((v) => v.kind === kind && v.nearest)
        .map((v) => ({ name: v.name, ...v.nearest! }))
        .sort((x, y) => x.score - y.score);
    const margins = { noiseNearest: scored('noise').at(-1) ?? null, changeWeakest: scored('change')[0] ?? null };
    return {
      bench: 'diff-corpus',
      truePositives,
      falsePositives: noise.length - trueNegatives,
      trueNegatives,
      falseNegatives: changes.length - truePositives,
      cases: misclassified,
      errors: errors.sort((x, y) => x.name.localeCompare(y.name)),
      margins,
      changeCases: changes.length,
      noiseCases: noise.length,
      rounds,
      concurrency,
      totalMs: Math.round(totalMs),
      // One run of a case: create the monitor, the baseline capture, the verdict capture (and its confirmation).
      caseP50Ms: Math.round(percentile(caseMs, 50)),
      caseP95Ms: Math.round(percentile(caseMs, 95)),
    };
  } finally {
    await svc.stop();
    await site.close();
  }
}
