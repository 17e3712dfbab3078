// The one place that builds a serving node: storage (storage.ts), the browser and its egress proxy
// (browser.ts), then every service and long-lived part, given what they need. Nothing starts here:
// serve.ts starts the parts in the order roles.ts gives for this node's role.
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import { Differ } from '../diff/pixels/differ.js';
import { DiffPool } from '../diff/pixels/pool.js';
import { createApp } from '../http/app.js';
import { httpLimits } from '../http/limits.js';
import { createProbeApp } from '../http/probe-app.js';
import { HttpServer } from '../http/server.js';
import { JobQueue } from '../jobs/queue.js';
import { jobIdOfUploadKey } from '../jobs/upload-bundle.js';
import { jobIdOfResultKey, RENDER_JOB_KINDS, RenderJobRunner } from '../jobs/render-job.js';
import { JobService } from '../jobs/service.js';
import { Sweeper } from '../jobs/sweeper.js';
import { JobWorker } from '../jobs/worker.js';
import { QpdfPdfEngine } from '../pdf/pdf-engine.js';
import { together, type Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import { captureIdOfFileKey } from '../monitors/capture-files.js';
import { CaptureJobRunner } from '../monitors/capture-job.js';
import { CAPTURE_JOB_KEEP_MS, CAPTURE_JOB_KIND, CaptureRecorder } from '../monitors/recorder.js';
import { MonitorRuns } from '../monitors/runs.js';
import { MonitorScheduler, schedulesElsewhere } from '../monitors/scheduler.js';
import { sealLegacySecrets } from '../monitors/seal-legacy-secrets.js';
import { MonitorService } from '../monitors/service.js';
import { FeedService } from '../feeds/service.js';
import { Metrics } from '../operations/metrics.js';
import { DatabaseClock } from '../operations/database-clock.js';
import { NodeHeartbeat, nodeId } from '../operations/node-heartbeat.js';
import { RenderHistory } from '../operations/render-history.js';
import { statusSnapshot, withStoredBytesCache } from '../operations/status.js';
import { DiskSpace } from '../operations/disk-space.js';
import { storageDriver } from '../stores/files/open.js';
import type { EgressProxy } from '../egress/proxy.js';
import type { BrowserManager } from '../render/browser/browser-manager.js';
import { RenderLimiter } from '../render/limiter.js';
import { PlaywrightRenderer } from '../render/renderer.js';
import { loadSecretsKey } from '../secrets/key-file.js';
import { SecretBox } from '../secrets/secret-box.js';
import { Tracing } from '../tracing/start.js';
import { PACKAGE_VERSION } from '../version.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { ChannelService } from '../channels/service.js';
import { openChannel } from '../channels/stored.js';
import { deliverToChannel, type AlertItem, type SendableChannel } from '../channels/deliver.js';
import { channelDeliveryDeps } from '../channels/delivery-deps.js';
import { composeBrowser } from './browser.js';
import { composePdfEngine, LimitedPdfEngine } from './pdf-engine.js';
import { pdfReaderAvailability } from '../content/poppler.js';
import { lifecyclesOf, partsOf } from './roles.js';
import { openStorage, type Storage } from './storage.js';

/** A node built and not yet started. */
export interface ComposedNode {
  storage: Storage;
  /** This node: its id in the node registry and its role. */
  node: NodeHeartbeat['node'];
  /** The parts this node's role runs, in start order. */
  parts: Lifecycle[];
  http: HttpServer;
  /** The egress proxy Chromium uses (it serves no other process); its url once started. */
  proxy: Pick<EgressProxy, 'url'>;
  browsers: BrowserManager;
  limiter: RenderLimiter;
  worker: JobWorker;
  dispatcher: WebhookDispatcher;
  sweeper: Sweeper;
  scheduler: MonitorScheduler;
  /** From now on the HTTP API answers 503 (the probes still answer). */
  shuttingDown(): void;
}

/** How a node is built besides its config: `clock` replaces the cluster's clock (tests run on fake time). */
export interface ComposeOptions {
  clock?: Clock;
}

export async function composeNode(
  config: Readonly<Config>,
  log: Logger,
  options: ComposeOptions = {},
): Promise<ComposedNode> {
  // Before anything else: without its key the service could neither read nor keep monitor secrets.
  const secretsKey = loadSecretsKey(config.secrets.key, resolve(config.dataDir));
  if (secretsKey.source === 'generated')
    log.info({ path: secretsKey.path }, 'generated the key of monitor secrets; back it up with the database');
  const secrets = new SecretBox(secretsKey.key);
  const storage = await openStorage(config, log);
  if (storage.applied.length) log.info({ applied: storage.applied }, 'migrations applied');
  try {
    return await composeOn(storage, secrets, config, log, options);
  } catch (err) {
    await storage.backend.close();
    throw err;
  }
}

async function composeOn(
  storage: Storage,
  secrets: SecretBox,
  config: Readonly<Config>,
  log: Logger,
  options: ComposeOptions,
): Promise<ComposedNode> {
  const node = { id: nodeId(), role: config.role, version: PACKAGE_VERSION, startedAt: new Date() };
  const duties = partsOf(config.role);
  const { backend } = storage;
  const stores = backend.stores;
  // Leases, schedules, retries and expiries compare times that different nodes wrote: on PostgreSQL every
  // node reads them from the database's clock (started first of the parts, so before anything reads it).
  const databaseClock = options.clock ? undefined : storage.readTime && new DatabaseClock(storage.readTime, log);
  const clock: Clock = options.clock ?? databaseClock ?? systemClock;
  const sealedNow = await sealLegacySecrets(backend, storage.scrub, secrets, log);
  if (sealedNow.length)
    log.info({ monitors: sealedNow.length }, 'encrypted the capture secrets of monitors stored in plaintext');

  const { egress, sandbox, browsers, proxy, fonts } = composeBrowser(config, log);
  const diffPool = new DiffPool(config.monitors.diffThreads);
  // The last hour of this node's renders (outcomes, times, queue waits) for /api/status.
  const history = new RenderHistory();
  const limiter = new RenderLimiter(config.render.concurrency, config.render.queueSize, (ms) => history.queueWait(ms));
  const statusStores = { ...stores, statusReads: withStoredBytesCache(stores.statusReads) };
  const status = () =>
    statusSnapshot(
      {
        version: PACKAGE_VERSION,
        // On the same clock as `now` (uptime): the start as the database's clock read it.
        startedAt: new Date(node.startedAt.getTime() + (databaseClock?.offsetMs ?? 0)),
        node,
        browsers,
        limiter,
        stores: statusStores,
        history,
        limits: { concurrency: config.render.concurrency, queueSize: config.render.queueSize },
      },
      clock.now(),
    );
  const metrics = new Metrics(status, history);
  // Every render — synchronous, async job or monitor capture — is counted and timed.
  const renderer = metrics.metered(
    new PlaywrightRenderer({ browsers, limiter, limits: config.limits, egress, failures: proxy.failures }),
  );
  const { results, captures: captureFiles } = storage.files();
  // The disk of dataDir matters where this node writes there: SQLite, or files kept as files.
  const writesDataDir = !config.database.url || storageDriver(config) === 'fs';
  const diskSpace = writesDataDir
    ? new DiskSpace({ dir: resolve(config.dataDir), minFreeBytes: config.storage.minFreeBytes })
    : undefined;
  const assertStorageRoom = diskSpace && (() => diskSpace.assertRoom());

  // Jobs: one durable queue; each kind registers its runner. As many jobs in the render line as there
  // are slots: with no synchronous traffic jobs fill every slot; with it, the first-come line shares the
  // slots instead of either side starving the other. Monitors' captures are jobs too, in the same line.
  const queue = new JobQueue(backend, config.jobs, clock);
  const pdfEngine = composePdfEngine(config, renderer);
  const renderJobs = new RenderJobRunner(renderer, results, config.jobs.resultTtlHours * 3600_000, clock, {
    engine: pdfEngine,
    secrets,
  });
  for (const kind of RENDER_JOB_KINDS) queue.register(kind, renderJobs);
  const differ = new Differ(diffPool, config.limits.maxImagePixels);
  const recorder = new CaptureRecorder(captureFiles, log, config.monitors);
  queue.register(
    CAPTURE_JOB_KIND,
    new CaptureJobRunner({
      stores,
      recorder,
      renderer,
      differ,
      files: captureFiles,
      log,
      secrets,
      clock,
      egress,
      content: { ...config.monitors, pdfMemoryMb: config.pdf.memoryMb },
      loginTtlHours: config.monitors.loginTtlHours,
    }),
  );
  const worker = new JobWorker(
    backend,
    queue,
    { capacity: config.render.concurrency, pollIntervalMs: config.jobs.pollIntervalMs, leaseMs: config.jobs.leaseMs },
    log,
  );
  // Channel deliveries: the channel read with its secrets opened, and sent by its type's sender.
  const channelDeps = channelDeliveryDeps({
    config,
    egress,
    captures: stores.captures,
    monitors: stores.monitors,
    files: captureFiles,
  });
  const channelSending = {
    open: async (id: string) => {
      const channel = await stores.channels.get(id);
      return channel && openChannel(channel, secrets);
    },
    send: (channel: SendableChannel, alerts: AlertItem[]) => deliverToChannel(channelDeps, channel, alerts),
  };
  const dispatcher = new WebhookDispatcher(
    backend,
    egress,
    { ...config.webhooks, pollIntervalMs: config.jobs.pollIntervalMs, clock, channels: channelSending },
    log,
  );
  const channels = new ChannelService({ backend, egress, secrets, clock });
  const sweeper = new Sweeper({
    stores,
    results,
    intervalMs: config.jobs.sweepIntervalMs,
    log,
    orphanSources: [
      {
        name: 'results',
        store: results,
        isReferenced: async (key) => {
          // An async job's upload is needed while the job may still run; a result while the row offers it.
          const uploader = jobIdOfUploadKey(key);
          if (uploader === undefined) return stores.jobs.holdsResult(jobIdOfResultKey(key), key);
          const job = await stores.jobs.get(uploader);
          return job?.status === 'queued' || job?.status === 'running';
        },
      },
      {
        name: 'captures',
        store: captureFiles,
        isReferenced: (key) => stores.captures.holdsFile(captureIdOfFileKey(key), key),
      },
    ],
    recordTtlMs: config.jobs.recordTtlDays * 86_400_000,
    shortLived: [{ kind: CAPTURE_JOB_KIND, keepMs: CAPTURE_JOB_KEEP_MS }],
    exclusive: backend,
    clock,
  });
  const runs = new MonitorRuns(backend, queue, config.monitors.minIntervalSeconds, clock);
  const reconcile = { changes: backend.changes, intervalMs: config.monitors.reconcileIntervalMs };
  const scheduler = new MonitorScheduler({ monitors: stores.monitors, runs, log, reconcile, clock });

  let shuttingDown = false;
  const readiness = {
    database: () => backend.ping(),
    browser: () => browsers.readiness(),
    ...(diskSpace && { storage: () => diskSpace.readiness() }),
    fonts: () => fonts.scripts(),
    pdfTools: () => QpdfPdfEngine.availability(),
    pdfText: () => pdfReaderAvailability(),
    sandbox,
  };
  const isShuttingDown = () => shuttingDown;
  const probes = { log, readiness, metrics, keys: stores.keys, auth: config.auth, isShuttingDown };
  const app = createApp({
    log,
    renderer,
    pdfEngine: new LimitedPdfEngine(pdfEngine, config.pdf),
    keys: stores.keys,
    limits: httpLimits(config),
    auth: config.auth,
    rateLimit: config.rateLimit,
    rateLimits: storage.rateLimits,
    jobs: new JobService({ queue, stores, results, worker, egress, secrets, assertStorageRoom }),
    monitors: new MonitorService({
      backend,
      runs,
      scheduler: duties.background ? scheduler : schedulesElsewhere,
      files: captureFiles,
      egress,
      abortJob: (jobId) => worker.abort(jobId),
      limits: config.monitors,
      secrets,
      clock,
      assertStorageRoom,
      checkChannels: (keyId, ids) => channels.checkMonitorChannels(keyId, ids),
    }),
    channels,
    feeds: new FeedService({ backend, files: captureFiles, clock }),
    deliveries: stores.deliveries,
    clock,
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

  const heartbeat = new NodeHeartbeat({ nodes: stores.nodes, node, log, now: () => clock.now() });
  // The fonts before the browser: it launches with their fontconfig file; both stop together.
  const browserParts = together('fonts and browser', [fonts, browsers]);
  const all = { heartbeat, proxy, browsers: browserParts, diffPool, dispatcher, sweeper, worker, scheduler, http };
  // Tracing starts first and stops last (its last batch sent); the database's clock before everything else.
  const tracing = config.tracing.endpoint ? [new Tracing(config.tracing, node, log)] : [];
  const first = databaseClock ? [...tracing, databaseClock] : tracing;
  return {
    storage,
    node,
    parts: [...first, ...lifecyclesOf(config.role, all)],
    http,
    proxy,
    browsers,
    limiter,
    worker,
    dispatcher,
    sweeper,
    scheduler,
    shuttingDown: () => {
      shuttingDown = true;
    },
  };
}
