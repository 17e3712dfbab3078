// The one place that wires things together and knows their order.
// Start: config → database + migrations → egress proxy, browser, diff pool → jobs and webhooks →
// monitor schedules → HTTP.
// Stop: schedules stop → HTTP and the job worker stop taking work → renders and jobs in flight drain
// (up to shutdownGraceMs; unfinished jobs go back to the queue) → webhook attempts in flight → diff
// threads, browser, egress proxy → database.
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Config } from './config.js';
import { IdempotencyKeyStore } from './db/idempotency-keys.js';
import { JobStore } from './db/jobs.js';
import { DeliveryStore } from './db/webhook-deliveries.js';
import { migrate, readMigrations } from './db/migrate.js';
import { openDatabase, type Db } from './db/open.js';
import { SqliteBackend } from './db/sqlite-backend.js';
import { EgressPolicy } from './egress/policy.js';
import { EgressProxy } from './egress/proxy.js';
import { heldByBrowsers } from './egress/socket-owner.js';
import { createApp } from './http/app.js';
import { HttpServer } from './http/server.js';
import { CaptureStore } from './db/captures.js';
import { MonitorStore } from './db/monitors.js';
import { sqliteScrub } from './db/scrub.js';
import { DiffPool } from './diff/pool.js';
import { Differ } from './diff/differ.js';
import { JobQueue } from './jobs/queue.js';
import { jobIdOfResultKey, RenderJobRunner } from './jobs/render-job.js';
import { CaptureJobRunner, captureIdOfFileKey } from './monitors/capture-job.js';
import { CaptureRecorder } from './monitors/recorder.js';
import { MonitorRuns } from './monitors/runs.js';
import { MonitorScheduler } from './monitors/scheduler.js';
import { MonitorService } from './monitors/service.js';
import { sealLegacySecrets } from './monitors/seal-legacy-secrets.js';
import { loadSecretsKey } from './secrets/key-file.js';
import { SecretBox } from './secrets/secret-box.js';
import { LocalFileStore } from './storage/file-store.js';
import { JobService } from './jobs/service.js';
import { Sweeper } from './jobs/sweeper.js';
import { JobWorker } from './jobs/worker.js';
import type { Logger } from './log.js';
import { projectRoot } from './project-root.js';
import { BrowserManager } from './render/browser-manager.js';
import { findChromium } from './render/chromium-path.js';
import { RenderLimiter } from './render/limiter.js';
import { decideSandbox } from './render/sandbox.js';
import { PlaywrightRenderer } from './render/renderer.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { Metrics } from './operations/metrics.js';
import { statusSnapshot } from './operations/status.js';
import { PACKAGE_VERSION } from './version.js';
import { startAll, stopAll } from './lifecycle.js';

export interface Service {
  server: Server;
  port: number;
  url: string;
  /** The egress proxy Chromium uses (it serves no other process). */
  proxyUrl: string;
  db: Db;
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
  // The proxy first: the browser connects through it. (A browser that cannot start is logged and the
  // service runs on without it.)
  const engines = [proxy, browsers, diffPool];
  await startAll(engines, log);

  const limiter = new RenderLimiter(config.render.concurrency, config.render.queueSize);
  const jobStore = new JobStore(db);
  // INTERIM (issue 12): the queue and the recorder insert deliveries synchronously until they are async.
  const deliveries = new DeliveryStore(db);
  const idempotency = new IdempotencyKeyStore(db);
  const monitorStore = new MonitorStore(db);
  const sealedNow = await sealLegacySecrets(backend, sqliteScrub(db), secrets, log);
  if (sealedNow.length)
    log.info({ monitors: sealedNow.length }, 'encrypted the capture secrets of monitors stored in plaintext');
  const status = () =>
    statusSnapshot({
      version: PACKAGE_VERSION,
      startedAt,
      browsers,
      limiter,
      stores: backend.stores,
      limits: { concurrency: config.render.concurrency, queueSize: config.render.queueSize },
    });
  const metrics = new Metrics(status);
  // Every render — synchronous, async job or monitor capture — is counted and timed.
  const renderer = metrics.metered(new PlaywrightRenderer(browsers, limiter, config.limits, egress));
  const captureStore = new CaptureStore(db);
  const captureFiles = new LocalFileStore(resolve(dataDir, 'captures'));
  const recorder = new CaptureRecorder(
    db,
    jobStore,
    monitorStore,
    captureStore,
    deliveries,
    captureFiles,
    log,
    config.monitors,
  );
  const queue = new JobQueue(db, jobStore, deliveries, idempotency, config.jobs, (job, now) =>
    recorder.jobFailed(job, now),
  );
  const results = new LocalFileStore(resolve(dataDir, 'results'));
  const dispatcher = new WebhookDispatcher(
    backend,
    egress,
    { ...config.webhooks, pollIntervalMs: config.jobs.pollIntervalMs },
    log,
  );
  // INTERIM (issue 12): deliveries inserted through the synchronous outbox do not notify `deliveries`.
  const wakeDispatcher = () => dispatcher.wake();
  // As many jobs in the render line as there are slots: with no synchronous traffic jobs fill every
  // slot; with it, the first-come line shares the slots instead of either side starving the other.
  // Monitors' captures are jobs too, in the same line.
  const renderJobs = new RenderJobRunner(
    queue,
    renderer,
    results,
    config.jobs.resultTtlHours * 3600_000,
    wakeDispatcher,
  );
  const worker = new JobWorker(
    queue,
    {
      pdf: renderJobs,
      image: renderJobs,
      capture: new CaptureJobRunner(
        monitorStore,
        captureStore,
        recorder,
        renderer,
        new Differ(diffPool, config.limits.maxImagePixels),
        captureFiles,
        wakeDispatcher,
        log,
        secrets,
      ),
    },
    { capacity: config.render.concurrency, pollIntervalMs: config.jobs.pollIntervalMs, leaseMs: config.jobs.leaseMs },
    log,
    wakeDispatcher,
  );
  const runs = new MonitorRuns(
    db,
    monitorStore,
    jobStore,
    () => worker.wake(),
    config.jobs.maxQueuedPerKey,
    config.monitors.minIntervalSeconds,
  );
  const scheduler = new MonitorScheduler(backend.stores.monitors, runs, log);
  const sweeper = new Sweeper(
    jobStore,
    idempotency,
    results,
    config.jobs.sweepIntervalMs,
    log,
    [
      { name: 'results', store: results, isReferenced: (key) => jobStore.holdsResult(jobIdOfResultKey(key), key) },
      {
        name: 'captures',
        store: captureFiles,
        isReferenced: (key) => captureStore.holdsFile(captureIdOfFileKey(key), key),
      },
    ],
    { store: backend.stores.retention, ttlMs: config.jobs.recordTtlDays * 86_400_000 },
  );
  await dispatcher.start();
  worker.start();
  sweeper.start();
  await scheduler.start();

  let shuttingDown = false;
  const app = createApp({
    log,
    renderer,
    keys: backend.stores.keys,
    limits: {
      ...config.limits,
      maxRetention: config.monitors.maxRetention,
      minIntervalSeconds: config.monitors.minIntervalSeconds,
    },
    auth: config.auth,
    rateLimit: config.rateLimit,
    jobs: new JobService(queue, jobStore, results, worker, egress),
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
    deliveries: backend.stores.deliveries,
    publicUrl: config.publicUrl,
    status,
    metrics,
    config,
    trustProxy: config.trustProxy,
    isShuttingDown: () => shuttingDown,
    readiness: { database: () => backend.ping(), browser: () => browsers.readiness(), sandbox },
  });

  const http = new HttpServer(app, { port: config.port, host: config.host, drained: () => limiter.idle(), log });
  await http.start();
  const { port, server } = http;
  log.info({ port, host: config.host, dataDir, concurrency: config.render.concurrency }, 'pagewatch listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      shuttingDown = true;
      const deadline = Date.now() + config.shutdownGraceMs;
      await scheduler.stop(deadline); // no new captures are queued from here on
      // Together: the server waits for the renders in flight while the worker stops taking new ones.
      await Promise.all([http.stop(deadline), worker.stop(config.shutdownGraceMs)]);
      await sweeper.stop();
      await dispatcher.stop(deadline);
      await stopAll(engines, deadline, log);
      await backend.close(); // closes the database
      log.info('pagewatch stopped');
    })());

  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    proxyUrl: proxy.url,
    db,
    browsers,
    limiter,
    worker,
    dispatcher,
    sweeper,
    scheduler,
    stop,
  };
}
