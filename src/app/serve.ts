// `pagewatch serve`: the node composed (compose.ts), its parts started in their order (roles.ts), and
// stopped in reverse by one deadline (shutdownGraceMs) before the database closes.
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import { startAll, stopAll } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { Backend } from '../stores/backend.js';
import type { DatabaseKind } from '../stores/sql/flavor.js';
import { composeNode, type ComposedNode, type ComposeOptions } from './compose.js';

/** A started node: the parts tests and tools look at (see ComposedNode), its address and its stop. */
export interface Service extends Pick<
  ComposedNode,
  'node' | 'browsers' | 'limiter' | 'worker' | 'dispatcher' | 'sweeper' | 'scheduler'
> {
  server: Server;
  port: number;
  url: string;
  /** The egress proxy Chromium uses (it serves no other process). */
  proxyUrl: string;
  backend: Backend;
  /** Which database the service runs on (database.url). */
  databaseKind: DatabaseKind;
  stop(): Promise<void>;
}

export async function startService(
  config: Readonly<Config>,
  log: Logger,
  options: ComposeOptions = {},
): Promise<Service> {
  const composed = await composeNode(config, log, options);
  const { storage, parts, http, node } = composed;
  const { backend } = storage;
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
      dataDir: resolve(config.dataDir),
      database: storage.kind,
      concurrency: config.render.concurrency,
      node: node.id,
      role: config.role,
    },
    'pagewatch listening',
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      composed.shuttingDown();
      await stopAll(parts, Date.now() + config.shutdownGraceMs, log);
      await backend.close(); // closes the database
      log.info('pagewatch stopped');
    })());

  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    proxyUrl: composed.proxy.url,
    backend,
    databaseKind: storage.kind,
    browsers: composed.browsers,
    limiter: composed.limiter,
    worker: composed.worker,
    dispatcher: composed.dispatcher,
    sweeper: composed.sweeper,
    scheduler: composed.scheduler,
    node,
    stop,
  };
}
