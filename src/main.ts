// The one place that wires things together and knows their order.
// Start: config → database + migrations → the long-lived parts in one list (egress proxy, browser, diff
// pool, webhook dispatcher, sweeper, then job worker, monitor schedules and HTTP server).
// Stop: the same list in reverse, by one deadline (shutdownGraceMs): the schedules stop and the HTTP
// server and the job worker stop taking work while renders and jobs in flight drain (unfinished jobs go
// back to the queue) → sweeper → webhook attempts in flight → diff threads, browser, egress proxy →
// database.
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Config } from './config.js';
import { migrate, readMigrations } from './db/migrate.js';
import { openDatabase, type Db } from './db/sqlite.js';
import { sqliteScrub } from './db/scrub.js';
import { SqliteBackend } from './db/sqlite-backend.js';
import { Differ } from './diff/differ.js';
import { DiffPool } from './diff/pool.js';
import { EgressPolicy } from './egress/policy.js';
import { EgressProxy } from './egress/proxy.js';
import { heldByBrowsers } from './egress/socket-owner.js';
import { createApp } from './http/app.js';
import { HttpServer } from './http/server.js';
import { JobQueue } from './jobs/queue.js';
import { jobIdOfResultKey, RENDER_JOB_KINDS, RenderJobRunner } from './jobs/render-job.js';
import { JobService } from './jobs/service.js';
import { Sweeper } from './jobs/sweeper.js';
import { JobWorker } from './jobs/worker.js';
import { startAll, stopAll, together, type Lifecycle } from './lifecycle.js';
import type { Logger } from './log.js';
import { captureIdOfFileKey } from './monitors/capture-files.js';
import { CaptureJobRunner } from './monitors/capture-job.js';
import { CAPTURE_JOB_KEEP_MS, CAPTURE_JOB_KIND, CaptureRecorder } from './monitors/recorder.js';
import { MonitorRuns } from './monitors/runs.js';
import { MonitorScheduler } from './monitors/scheduler.js';
import { sealLegacySecrets } from './monitors/seal-legacy-secrets.js';
import { MonitorService } from './monitors/service.js';
import { Metrics } from './operations/metrics.js';
import { statusSnapshot } from './operations/status.js';
import { projectRoot } from './project-root.js';
import { BrowserManager } from './render/browser-manager.js';
import { findChromium } from './render/chromium-path.js';
import { RenderLimiter } from './render/limiter.js';
import { PlaywrightRenderer } from './render/renderer.js';
import { decideSandbox } from './render/sandbox.js';
import { loadSecretsKey } from './secrets/key-file.js';
import { SecretBox } from './secrets/secret-box.js';
import { LocalFileStore } from './storage/file-store.js';
import { PACKAGE_VERSION } from './version.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

export interface Service {
  server: Server;
  port: number;
  url: string;
  /** The egress proxy Chromium uses (it serves no other process). */
  proxyUrl: string;
  /** The raw SQLite handle, for tests and tools that read the file as another process would. */
  db: Db;
  backend: SqliteBackend;
  browsers: BrowserManager;
  limiter: RenderLimiter;
  worker: JobWorker;
  dispatcher: WebhookDispatcher;
  sweeper: Sweeper;
  scheduler: MonitorScheduler;
  stop(): Promise<void>;
}

export async function startService(config: Readonly<Config>, log: Logger): Promise<Service> {
  const startedAt = new Date();
  const dataDir = resolve(config.dataDir);
  // Before anything else: without its key the service could neither read nor keep monitor secrets.
  const secretsKey = loadSecretsKey(config.secrets.key, dataDir);
  if (secretsKey.source === 'generated')
    log.info({ path: secretsKey.path }, 'generated the key of monitor secrets; back it up with the database');
  const secrets = new SecretBox(secretsKey.key);
  const db = openDatabase(resolve(dataDir, 'pagewatch.db'));
  try {
    const applied = migrate(db, readMigrations(resolve(projectRoot(), 'migrations')));
    if (applied.length) log.info({ applied }, 'migrations applied');
  } catch (err) {
    db.close();
    throw err;
  }
  const backend = new SqliteBackend(db);
  const stores = backend.stores;
  const sealedNow = await sealLegacySecrets(backend, sqliteScrub(db), secrets, log);
  if (sealedNow.length)
    log.info({ monitors: sealedNow.length }, 'encrypted the capture secrets of monitors stored in plaintext');

  const egress = new EgressPolicy(config.egress);
  const sandbox = decideSandbox(config.render.sandbox, process.geteuid?.());
  if (sandbox.warning) log.warn({ sandbox: false }, sandbox.warning);
  const browsers: BrowserManager = new BrowserManager({
    executablePath: findChromium(config.chromiumPath),
    proxyUrl: (): string => proxy.url, // read at launch, once the proxy below listens
    sandbox: sandbox.enabled,
    warmPages: config.render.warmPages,
    restartAfter: config.render.restartAfter,
    pageMaxUses: config.render.pageMaxUses,
    log,
  });
  // Only our own Chromium may use the proxy: a connection from any other local process gets 407.
  const proxy = new EgressProxy(egress, { isOwnBrowser: (socket) => heldByBrowsers(socket, browsers.browserPids()) });
  proxy.on('blocked', ({ target, reason }) => log.debug({ target, reason }, 'egress blocked'));
  proxy.on('refusedClient', ({ port }) =>
    log.warn({ clientPort: port }, 'egress proxy refused a local process that is not our browser'),
  );
  const diffPool = new DiffPool(config.monitors.diffThreads);
  const limiter = new RenderLimiter(config.render.concurrency, config.render.queueSize);
  const status = () =>
    statusSnapshot({
      version: PACKAGE_VERSION,
      startedAt,
      browsers,
      limiter,
      stores,
      limits: { concurrency: config.render.concurrency, queueSize: config.render.queueSize },
    });
  const metrics = new Metrics(status);
  // Every render — synchronous, async job or monitor capture — is counted and timed.
  const renderer = metrics.metered(new PlaywrightRenderer(browsers, limiter, config.limits, egress));
  const results = new LocalFileStore(resolve(dataDir, 'results'));
  const captureFiles = new LocalFileStore(resolve(dataDir, 'captures'));

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
    new CaptureJobRunner(stores, recorder, renderer, differ, captureFiles, log, secrets),
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
  const sweeper = new Sweeper(
    stores,
    results,
    config.jobs.sweepIntervalMs,
    log,
    [
      { name: 'results', store: results, isReferenced: (key) => stores.jobs.holdsResult(jobIdOfResultKey(key), key) },
      {
        name: 'captures',
        store: captureFiles,
        isReferenced: (key) => stores.captures.holdsFile(captureIdOfFileKey(key), key),
      },
    ],
    config.jobs.recordTtlDays * 86_400_000,
    [{ kind: CAPTURE_JOB_KIND, keepMs: CAPTURE_JOB_KEEP_MS }],
  );
  const runs = new MonitorRuns(backend, queue, config.monitors.minIntervalSeconds);
  const scheduler = new MonitorScheduler(stores.monitors, runs, log);

  let shuttingDown = false;
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
    jobs: new JobService(queue, stores, results, worker, egress),
    monitors: new MonitorService(
      backend,
      runs,
      scheduler,
      captureFiles,
      egress,
      (jobId) => worker.abort(jobId),
      config.monitors,
      secrets,
    ),
    deliveries: stores.deliveries,
    publicUrl: config.publicUrl,
    status,
    metrics,
    config,
    trustProxy: config.trustProxy,
    isShuttingDown: () => shuttingDown,
    readiness: { database: () => backend.ping(), browser: () => browsers.readiness(), sandbox },
  });
  const http = new HttpServer(app, { port: config.port, host: config.host, drained: () => limiter.idle(), log });

  // The proxy before the browser (it connects through it); a browser that cannot start is logged and the
  // service runs on without it. The schedules start before the HTTP server (a PATCH must not meet a
  // half-read schedule list), and the three stop together: the schedules queue nothing more while the
  // HTTP server and the job worker drain the same renders.
  const parts: Lifecycle[] = [
    proxy,
    browsers,
    diffPool,
    dispatcher,
    sweeper,
    together('job worker, monitor schedules and http server', [worker, scheduler, http]),
  ];
  try {
    await startAll(parts, log);
  } catch (err) {
    await backend.close();
    throw err;
  }
  const { port, server } = http;
  log.info({ port, host: config.host, dataDir, concurrency: config.render.concurrency }, 'pagewatch listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      shuttingDown = true;
      await stopAll(parts, Date.now() + config.shutdownGraceMs, log);
      await backend.close(); // closes the database
      log.info('pagewatch stopped');
    })());

  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    proxyUrl: proxy.url,
    db,
    backend,
    browsers,
    limiter,
    worker,
    dispatcher,
    sweeper,
    scheduler,
    stop,
  };
}
