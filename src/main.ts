// The one place that wires things together and knows their order.
// Start: config → database + migrations → browser → jobs and webhooks → monitor schedules → HTTP.
// Stop: schedules stop → HTTP and the job worker stop taking work → renders and jobs in flight drain
// (up to shutdownGraceMs; unfinished jobs go back to the queue) → diff threads → webhook attempts in
// flight → browser → database.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Config } from './config.js';
import { ApiKeyStore } from './db/api-keys.js';
import { DeliveryStore } from './db/webhook-deliveries.js';
import { migrate, readMigrations } from './db/migrate.js';
import { openDatabase, type Db } from './db/open.js';
import { SqliteBackend } from './db/sqlite-backend.js';
import { EgressPolicy } from './egress/policy.js';
import { EgressProxy } from './egress/proxy.js';
import { heldByBrowsers } from './egress/socket-owner.js';
import { createApp } from './http/app.js';
import { CaptureStore } from './db/captures.js';
import { MonitorStore } from './db/monitors.js';
import { DiffPool } from './diff/pool.js';
import { Differ } from './diff/differ.js';
import { JobQueue } from './jobs/queue.js';
import { jobIdOfResultKey, RENDER_JOB_KINDS, RenderJobRunner } from './jobs/render-job.js';
import { CaptureJobRunner, captureIdOfFileKey } from './monitors/capture-job.js';
import { CAPTURE_JOB_KEEP_MS, CAPTURE_JOB_KIND, CaptureRecorder } from './monitors/recorder.js';
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
import { JOB_STATUSES, type JobStatus } from './stores/jobs.js';

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
  // Only our own Chromium may use the proxy: a connection from any other local process gets 407.
  // The browsers are known once the manager below exists, before any browser can connect.
  let browserPids = (): number[] => [];
  const proxy = new EgressProxy(egress, { isOwnBrowser: (socket) => heldByBrowsers(socket, browserPids()) });
  const proxyUrl = await proxy.start();
  proxy.on('blocked', ({ target, reason }) => log.debug({ target, reason }, 'egress blocked'));
  proxy.on('refusedClient', ({ port }) =>
    log.warn({ clientPort: port }, 'egress proxy refused a local process that is not our browser'),
  );

  const sandbox = decideSandbox(config.render.sandbox, process.geteuid?.());
  if (sandbox.warning) log.warn({ sandbox: false }, sandbox.warning);
  const executablePath = findChromium(config.chromiumPath);
  const browsers = new BrowserManager({
    executablePath,
    proxyUrl,
    sandbox: sandbox.enabled,
    warmPages: config.render.warmPages,
    restartAfter: config.render.restartAfter,
    pageMaxUses: config.render.pageMaxUses,
    log,
  });
  browserPids = () => browsers.browserPids();
  // A browser that cannot start does not stop the service: /ready says 503, renders answer 503, and
  // each new render tries to launch again.
  await browsers.start().catch((err) => log.error({ err, executablePath }, 'browser could not be started'));

  const limiter = new RenderLimiter(config.render.concurrency, config.render.queueSize);
  const keys = new ApiKeyStore(db);
  const deliveries = new DeliveryStore(db);
  const monitorStore = new MonitorStore(db);
  const sealedNow = sealLegacySecrets(db, monitorStore, secrets, log);
  if (sealedNow.length)
    log.info({ monitors: sealedNow.length }, 'encrypted the capture secrets of monitors stored in plaintext');
  const status = () =>
    statusSnapshot({
      version: PACKAGE_VERSION,
      startedAt,
      browsers,
      limiter,
      jobs: { countByStatus: () => countRenderJobsByStatus(db) },
      monitors: monitorStore,
      deliveries,
      limits: { concurrency: config.render.concurrency, queueSize: config.render.queueSize },
    });
  const metrics = new Metrics(status);
  // Every render — synchronous, async job or monitor capture — is counted and timed.
  const renderer = metrics.metered(new PlaywrightRenderer(browsers, limiter, config.limits, egress));
  const captureStore = new CaptureStore(db);
  const captureFiles = new LocalFileStore(resolve(dataDir, 'captures'));
  const queue = new JobQueue(backend, config.jobs);
  const results = new LocalFileStore(resolve(dataDir, 'results'));
  const diffPool = new DiffPool(config.monitors.diffThreads);
  const dispatcher = new WebhookDispatcher(
    deliveries,
    keys,
    egress,
    { ...config.webhooks, pollIntervalMs: config.jobs.pollIntervalMs },
    log,
  );
  const wakeDispatcher = () => dispatcher.wake();
  backend.changes.on('deliveries', wakeDispatcher);
  // As many jobs in the render line as there are slots: with no synchronous traffic jobs fill every
  // slot; with it, the first-come line shares the slots instead of either side starving the other.
  // Monitors' captures are jobs too, in the same line.
  const renderJobs = new RenderJobRunner(renderer, results, config.jobs.resultTtlHours * 3600_000);
  for (const kind of RENDER_JOB_KINDS) queue.register(kind, renderJobs);
  queue.register(
    CAPTURE_JOB_KIND,
    new CaptureJobRunner(
      backend.stores,
      new CaptureRecorder(captureFiles, log, config.monitors),
      renderer,
      new Differ(diffPool, config.limits.maxImagePixels),
      captureFiles,
      log,
      secrets,
    ),
  );
  const worker = new JobWorker(
    backend,
    queue,
    { capacity: config.render.concurrency, pollIntervalMs: config.jobs.pollIntervalMs, leaseMs: config.jobs.leaseMs },
    log,
  );
  const runs = new MonitorRuns(backend, queue, config.monitors.minIntervalSeconds);
  const scheduler = new MonitorScheduler(monitorStore, runs, log);
  const stores = backend.stores;
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
  dispatcher.start();
  await worker.start();
  await sweeper.start();
  await scheduler.start();

  let shuttingDown = false;
  const app = createApp({
    log,
    renderer,
    keys,
    limits: {
      ...config.limits,
      maxRetention: config.monitors.maxRetention,
      minIntervalSeconds: config.monitors.minIntervalSeconds,
    },
    auth: config.auth,
    rateLimit: config.rateLimit,
    jobs: new JobService(queue, stores, results, worker, egress),
    monitors: new MonitorService(
      db,
      monitorStore,
      captureStore,
      backend,
      runs,
      scheduler,
      captureFiles,
      egress,
      (jobId) => worker.abort(jobId),
      config.monitors,
      secrets,
    ),
    deliveries,
    wakeDispatcher,
    publicUrl: config.publicUrl,
    status,
    metrics,
    config,
    trustProxy: config.trustProxy,
    isShuttingDown: () => shuttingDown,
    readiness: { database: () => databaseUsable(db), browser: () => browsers.readiness(), sandbox },
  });

  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, host: config.host, dataDir, concurrency: config.render.concurrency }, 'pagewatch listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      shuttingDown = true;
      scheduler.stop(); // no new captures are queued from here on
      const deadline = Date.now() + config.shutdownGraceMs;
      const left = () => Math.max(0, deadline - Date.now());
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      const [drained] = await Promise.all([
        Promise.race([
          limiter.idle().then(() => true),
          new Promise<false>((done) => setTimeout(done, config.shutdownGraceMs, false).unref()),
        ]),
        worker.stop(deadline),
      ]);
      if (!drained) log.warn({ graceMs: config.shutdownGraceMs }, 'renders still running at the shutdown deadline');
      // Let the drained responses finish writing, then cut whatever keep-alive connections remain.
      setTimeout(() => server.closeAllConnections(), drained ? 1000 : 0).unref();
      await closed;
      await sweeper.stop(deadline);
      await diffPool.stop();
      await dispatcher.stop(left());
      await browsers.stop();
      await proxy.stop();
      await backend.close(); // closes the handle
      log.info('pagewatch stopped');
    })());

  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    proxyUrl,
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

/**
 * INTERIM (issue 12): /api/status is still synchronous; the render jobs' counts are read here until it
 * awaits `stores.jobs.countByStatus(RENDER_JOB_KINDS)`.
 */
function countRenderJobsByStatus(db: Db): Record<JobStatus, number> {
  const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  const kinds = RENDER_JOB_KINDS.map(() => '?').join(', ');
  const rows = db
    .prepare(`SELECT status, COUNT(*) AS n FROM jobs WHERE kind IN (${kinds}) GROUP BY status`)
    .all(...RENDER_JOB_KINDS) as { status: JobStatus; n: number }[];
  for (const { status, n } of rows) counts[status] = n;
  return counts;
}

function databaseUsable(db: Db): boolean {
  try {
    return db.prepare('SELECT 1 AS ok').get() !== undefined;
  } catch {
    return false;
  }
}
