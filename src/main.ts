// The one place that wires things together and knows their order; the node's role (src/roles.ts) says
// which parts run. Start: config → database + migrations → the long-lived parts in one list (registry
// heartbeat, egress proxy, browser, diff pool, webhook dispatcher, sweeper, then job worker, monitor
// schedules and HTTP server; an api node: heartbeat, proxy, browser, HTTP server).
// Stop: the same list in reverse, by one deadline (shutdownGraceMs): the schedules stop and the HTTP
// server and the job worker stop taking work while renders and jobs in flight drain (unfinished jobs go
// back to the queue) → sweeper → webhook attempts in flight → diff threads, browser, egress proxy →
// database.
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { browserAndProxy } from './browser-and-proxy.js';
import type { Config } from './config.js';
import { openBackend } from './stores/sql/open-backend.js';
import type { Db } from './stores/sql/sqlite/connection.js';
import { withSqliteHandle } from './sqlite-handle.js';
import { Differ } from './diff/differ.js';
import { DiffPool } from './diff/pool.js';
import { createApp } from './http/app.js';
import { createProbeApp } from './http/probe-app.js';
import { HttpServer } from './http/server.js';
import { JobQueue } from './jobs/queue.js';
import { jobIdOfResultKey, RENDER_JOB_KINDS, RenderJobRunner } from './jobs/render-job.js';
import { JobService } from './jobs/service.js';
import { Sweeper } from './jobs/sweeper.js';
import { JobWorker } from './jobs/worker.js';
import { startAll, stopAll } from './lifecycle.js';
import type { Logger } from './log.js';
import { captureIdOfFileKey } from './monitors/capture-files.js';
import { CaptureJobRunner } from './monitors/capture-job.js';
import { CAPTURE_JOB_KEEP_MS, CAPTURE_JOB_KIND, CaptureRecorder } from './monitors/recorder.js';
import { MonitorRuns } from './monitors/runs.js';
import { MonitorScheduler, schedulesElsewhere } from './monitors/scheduler.js';
import { sealLegacySecrets } from './monitors/seal-legacy-secrets.js';
import { MonitorService } from './monitors/service.js';
import { Metrics } from './operations/metrics.js';
import { NodeHeartbeat, nodeId } from './operations/node-heartbeat.js';
import { RenderHistory } from './operations/render-history.js';
import { statusSnapshot, withStoredBytesCache } from './operations/status.js';
import type { BrowserManager } from './render/browser-manager.js';
import { RenderLimiter } from './render/limiter.js';
import { PlaywrightRenderer } from './render/renderer.js';
import { lifecyclesOf, partsOf } from './roles.js';
import { loadSecretsKey } from './secrets/key-file.js';
import { SecretBox } from './secrets/secret-box.js';
import { openFileStores } from './stores/files/open.js';
import type { Backend } from './stores/backend.js';
import { PACKAGE_VERSION } from './version.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

export interface Service {
  server: Server;
  port: number;
  url: string;
  /** The egress proxy Chromium uses (it serves no other process). */
  proxyUrl: string;
  /**
   * The raw SQLite handle, for tests and tools that read the file as another process would. On PostgreSQL
   * there is none: reading it throws (and it is left out of object spreads).
   */
  db: Db;
  backend: Backend;
  /** Which database the service runs on (database.url). */
  databaseKind: 'sqlite' | 'postgres';
  browsers: BrowserManager;
  limiter: RenderLimiter;
  worker: JobWorker;
  dispatcher: WebhookDispatcher;
  sweeper: Sweeper;
  scheduler: MonitorScheduler;
  /** This node: its id in the node registry and its role (what it runs: src/roles.ts). */
  node: NodeHeartbeat['node'];
  stop(): Promise<void>;
}

export async function startService(config: Readonly<Config>, log: Logger): Promise<Service> {
  const startedAt = new Date();
  const node = { id: nodeId(), role: config.role, version: PACKAGE_VERSION, startedAt };
  const duties = partsOf(config.role);
  const dataDir = resolve(config.dataDir);
  // Before anything else: without its key the service could neither read nor keep monitor secrets.
  const secretsKey = loadSecretsKey(config.secrets.key, dataDir);
  if (secretsKey.source === 'generated')
    log.info({ path: secretsKey.path }, 'generated the key of monitor secrets; back it up with the database');
  const secrets = new SecretBox(secretsKey.key);
  const opened = await openBackend(config, log);
  if (opened.applied.length) log.info({ applied: opened.applied }, 'migrations applied');
  const { backend } = opened;
  const stores = backend.stores;
  const sealedNow = await sealLegacySecrets(backend, opened.scrub, secrets, log);
  if (sealedNow.length)
    log.info({ monitors: sealedNow.length }, 'encrypted the capture secrets of monitors stored in plaintext');

  const { egress, sandbox, browsers, proxy } = browserAndProxy(config, log);
  const diffPool = new DiffPool(config.monitors.diffThreads);
  // The last hour of this node's renders (outcomes, times, queue waits) for /api/status.
  const history = new RenderHistory();
  const limiter = new RenderLimiter(config.render.concurrency, config.render.queueSize, (ms) => history.queueWait(ms));
  const statusStores = { ...stores, statusReads: withStoredBytesCache(stores.statusReads) };
  const status = () =>
    statusSnapshot({
      version: PACKAGE_VERSION,
      startedAt,
      node,
      browsers,
      limiter,
      stores: statusStores,
      history,
      limits: { concurrency: config.render.concurrency, queueSize: config.render.queueSize },
    });
  const metrics = new Metrics(status, history);
  // Every render — synchronous, async job or monitor capture — is counted and timed.
  const renderer = metrics.metered(
    new PlaywrightRenderer({ browsers, limiter, limits: config.limits, egress, failures: proxy.failures }),
  );
  const { results, captures: captureFiles } = openFileStores(config, dataDir, opened.databaseFiles);

  // Jobs: one durable queue; each kind registers its runner. As many jobs in the render line as there
  // are slots: with no synchronous traffic jobs fill every slot; with it, the first-come line shares the
  // slots instead of either side starving the other. Monitors' captures are jobs too, in the same line.
  const queue = new JobQueue(backend, config.jobs);
  const renderJobs = new RenderJobRunner(renderer, results, config.jobs.resultTtlHours * 3600_000);
  for (const kind of RENDER_JOB_KINDS) queue.register(kind, renderJobs);
  const differ = new Differ(diffPool, config.limits.maxImagePixels);
  const recorder = new CaptureRecorder(captureFiles, log, config.monitors);
  queue.register(
    CAPTURE_JOB_KIND,
    new CaptureJobRunner({ stores, recorder, renderer, differ, files: captureFiles, log, secrets }),
  );
  const worker = new JobWorker(
    backend,
    queue,
    { capacity: config.render.concurrency, pollIntervalMs: config.jobs.pollIntervalMs, leaseMs: config.jobs.leaseMs },
    log,
  );
  const dispatcher = new WebhookDispatcher(
    backend,
    egress,
    { ...config.webhooks, pollIntervalMs: config.jobs.pollIntervalMs },
    log,
  );
  const sweeper = new Sweeper({
    stores,
    results,
    intervalMs: config.jobs.sweepIntervalMs,
    log,
    orphanSources: [
      { name: 'results', store: results, isReferenced: (key) => stores.jobs.holdsResult(jobIdOfResultKey(key), key) },
      {
        name: 'captures',
        store: captureFiles,
        isReferenced: (key) => stores.captures.holdsFile(captureIdOfFileKey(key), key),
      },
    ],
    recordTtlMs: config.jobs.recordTtlDays * 86_400_000,
    shortLived: [{ kind: CAPTURE_JOB_KIND, keepMs: CAPTURE_JOB_KEEP_MS }],
    exclusive: backend,
  });
  const runs = new MonitorRuns(backend, queue, config.monitors.minIntervalSeconds);
  const reconcile = { changes: backend.changes, intervalMs: config.monitors.reconcileIntervalMs };
  const scheduler = new MonitorScheduler({ monitors: stores.monitors, runs, log, reconcile });

  let shuttingDown = false;
  const readiness = { database: () => backend.ping(), browser: () => browsers.readiness(), sandbox };
  const isShuttingDown = () => shuttingDown;
  const probes = { log, readiness, metrics, keys: stores.keys, auth: config.auth, isShuttingDown };
  const app = createApp({
    log,
    renderer,
    keys: stores.keys,
    limits: {
      ...config.limits,
      maxRetention: config.monitors.maxRetention,
      minIntervalSeconds: config.monitors.minIntervalSeconds,
    },
    auth: config.auth,
    rateLimit: config.rateLimit,
    rateLimits: opened.rateLimits,
    jobs: new JobService({ queue, stores, results, worker, egress }),
    monitors: new MonitorService({
      backend,
      runs,
      scheduler: duties.background ? scheduler : schedulesElsewhere,
      files: captureFiles,
      egress,
      abortJob: (jobId) => worker.abort(jobId),
      limits: config.monitors,
      secrets,
    }),
    deliveries: stores.deliveries,
    publicUrl: config.publicUrl,
    status,
    metrics,
    config,
    trustProxy: config.trustProxy,
    isShuttingDown,
    readiness,
  });
  // A worker node serves only its probes (the API is the api nodes').
  const http = new HttpServer(duties.api ? app : createProbeApp(probes), {
    port: config.port,
    host: config.host,
    drained: () => limiter.idle(),
    log,
  });

  const heartbeat = new NodeHeartbeat({ nodes: stores.nodes, node, log });
  const all = { heartbeat, proxy, browsers, diffPool, dispatcher, sweeper, worker, scheduler, http };
  const parts = lifecyclesOf(config.role, all);
  try {
    await startAll(parts, log);
  } catch (err) {
    await backend.close();
    throw err;
  }
  const { port, server } = http;
  log.info(
    {
      port,
      host: config.host,
      dataDir,
      database: opened.kind,
      concurrency: config.render.concurrency,
      node: node.id,
      role: config.role,
    },
    'pagewatch listening',
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      shuttingDown = true;
      await stopAll(parts, Date.now() + config.shutdownGraceMs, log);
      await backend.close(); // closes the database
      log.info('pagewatch stopped');
    })());

  const service = {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    proxyUrl: proxy.url,
    backend,
    databaseKind: opened.kind,
    browsers,
    limiter,
    worker,
    dispatcher,
    sweeper,
    scheduler,
    node,
    stop,
  };
  return withSqliteHandle(service, opened.sqlite);
}
