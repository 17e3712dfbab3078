// The HTTP server as one part of the service's lifecycle: it listens at start; at stop it takes no new
// connections, lets the renders in flight finish until the deadline, then cuts what is left.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';

export interface HttpServerOptions {
  port: number;
  host: string;
  /** Resolves when no render is running (RenderLimiter.idle): the responses being waited for are written. */
  drained: () => Promise<void>;
  log: Logger;
}

/** After the drain, a response just finished gets this long to reach its client before its connection is cut. */
const LINGER_MS = 1000;

export class HttpServer implements Lifecycle {
  readonly name = 'http server';
  private listening: Server | undefined;

  constructor(
    private readonly app: Koa,
    private readonly opts: HttpServerOptions,
  ) {}

  async start(): Promise<void> {
    const server = this.app.listen(this.opts.port, this.opts.host);
    await once(server, 'listening');
    this.listening = server;
  }

  /** The Node server; there is one once started. */
  get server(): Server {
    if (!this.listening) throw new Error('the HTTP server has not started');
    return this.listening;
  }

  /** The port listened on (the one chosen by the system when the configured port is 0). */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async stop(deadline: number): Promise<void> {
    const server = this.listening;
    if (!server) return;
    const closed = new Promise<void>((done) => server.close(() => done()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      this.opts.drained().then(() => true),
      new Promise<false>((done) => (timer = setTimeout(done, Math.max(0, deadline - Date.now()), false))),
    ]);
    clearTimeout(timer);
    if (!drained)
      this.opts.log.warn({ deadline: new Date(deadline) }, 'renders still running at the shutdown deadline');
    // Let the drained responses finish writing, then cut whatever keep-alive connections remain.
    setTimeout(() => server.closeAllConnections(), drained ? LINGER_MS : 0).unref();
    await closed;
  }
}
