// The one place that wires things together and knows their order.
// Start: config → database + migrations → browser → jobs and webhooks → HTTP. Stop: HTTP and the job
// worker stop taking work → renders and jobs in flight drain (up to shutdownGraceMs; unfinished jobs go
// back to the queue) → webhook attempts in flight → browser → database.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Config } from './config.js';
import { ApiKeyStore } from './db/api-keys.js';
import { IdempotencyKeyStore } from './db/idempotency-keys.js';
import { JobStore } from './db/jobs.js';
import { DeliveryStore } from './db/webhook-deliveries.js';
import { migrate, readMigrations } from './db/migrate.js';
import { openDatabase, type Db } from './db/open.js';
import { EgressPolicy } from './egress/policy.js';
import { EgressProxy } from './egress/proxy.js';
import { createApp } from './http/app.js';
import { JobQueue } from './jobs/queue.js';
import { LocalFileStore } from './storage/file-store.js';
import { JobService } from './jobs/service.js';
import { Sweeper } from './jobs/sweeper.js';
import { JobWorker } from './jobs/worker.js';
import type { Logger } from './log.js';
import { projectRoot } from './project-root.js';
import { BrowserManager } from './render/browser-manager.js';
import { findChromium } from './render/chromium-path.js';
import { RenderLimiter } from './render/limiter.js';
import { PlaywrightRenderer } from './render/renderer.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

export interface Service {
  server: Server;
  port: number;
  url: string;
  db: Db;
  browsers: BrowserManager;
  limiter: RenderLimiter;
  worker: JobWorker;
  dispatcher: WebhookDispatcher;
  sweeper: Sweeper;
  stop(): Promise<void>;
}

export async function startService(config: Readonly<Config>, log: Logger): Promise<Service> {
  const dataDir = resolve(config.dataDir);
  const db = openDatabase(resolve(dataDir, 'pagewatch.db'));
  try {
    const applied = migrate(db, readMigrations(resolve(projectRoot(), 'migrations')));
    if (applied.length) log.info({ applied }, 'migrations applied');
  } catch (err) {
    db.close();
    throw err;
  }

  const egress = new EgressPolicy(config.egress);
  const proxy = new EgressProxy(egress);
  const proxyUrl = await proxy.start();
  proxy.on('blocked', ({ target, reason }) => log.debug({ target, reason }, 'egress blocked'));

  const executablePath = findChromium(config.chromiumPath);
  const browsers = new BrowserManager({
    executablePath, proxyUrl, warmPages: config.render.warmPages, restartAfter: config.render.restartAfter,
    pageMaxUses: config.render.pageMaxUses, log,
  });
  // A browser that cannot start does not stop the service: /ready says 503, renders answer 503, and
  // each new render tries to launch again.
  await browsers.start().catch((err) => log.error({ err, executablePath }, 'browser could not be started'));

  const limiter = new RenderLimiter(config.render.concurrency, config.render.queueSize);
  const renderer = new PlaywrightRenderer(browsers, limiter, config.limits, egress);
  const keys = new ApiKeyStore(db);
  const jobStore = new JobStore(db);
  const deliveries = new DeliveryStore(db);
  const idempotency = new IdempotencyKeyStore(db);
  const queue = new JobQueue(db, jobStore, deliveries, idempotency, config.jobs);
  const results = new LocalFileStore(resolve(dataDir, 'results'));
  const dispatcher = new WebhookDispatcher(deliveries, keys, egress, { ...config.webhooks, pollIntervalMs: config.jobs.pollIntervalMs }, log);
  // As many jobs in the render line as there are slots: with no synchronous traffic jobs fill every
  // slot; with it, the first-come line shares the slots instead of either side starving the other.
  const worker = new JobWorker(queue, renderer, results, {
    capacity: config.render.concurrency, pollIntervalMs: config.jobs.pollIntervalMs, leaseMs: config.jobs.leaseMs,
    resultTtlMs: config.jobs.resultTtlHours * 3600_000,
  }, log, () => dispatcher.wake());
  const sweeper = new Sweeper(jobStore, idempotency, results, config.jobs.sweepIntervalMs, log);
  dispatcher.start();
  worker.start();
  sweeper.start();

  let shuttingDown = false;
  const app = createApp({
    log, renderer, keys, limits: config.limits, auth: config.auth, rateLimit: config.rateLimit,
    jobs: new JobService(queue, jobStore, results, worker, egress), deliveries, wakeDispatcher: () => dispatcher.wake(),
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy, isShuttingDown: () => shuttingDown,
    readiness: { database: () => databaseUsable(db), browser: () => browsers.isUsable() },
  });

  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, host: config.host, dataDir, concurrency: config.render.concurrency }, 'pagewatch listening');

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= (async () => {
    shuttingDown = true;
    const deadline = Date.now() + config.shutdownGraceMs;
    const left = () => Math.max(0, deadline - Date.now());
    const closed = new Promise<void>((done) => server.close(() => done()));
    server.closeIdleConnections();
    const [drained] = await Promise.all([
      Promise.race([
        limiter.idle().then(() => true),
        new Promise<false>((done) => setTimeout(done, config.shutdownGraceMs, false).unref()),
      ]),
      worker.stop(config.shutdownGraceMs),
    ]);
    if (!drained) log.warn({ graceMs: config.shutdownGraceMs }, 'renders still running at the shutdown deadline');
    // Let the drained responses finish writing, then cut whatever keep-alive connections remain.
    setTimeout(() => server.closeAllConnections(), drained ? 1000 : 0).unref();
    await closed;
    await sweeper.stop();
    await dispatcher.stop(left());
    await browsers.stop();
    await proxy.stop();
    db.close();
    log.info('pagewatch stopped');
  })());

  return { server, port, url: `http://127.0.0.1:${port}`, db, browsers, limiter, worker, dispatcher, sweeper, stop };
}

function databaseUsable(db: Db): boolean {
  try {
    return db.prepare('SELECT 1 AS ok').get() !== undefined;
  } catch {
    return false;
  }
}
