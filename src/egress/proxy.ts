// An HTTP proxy on 127.0.0.1 that all of Chromium's traffic goes through, so the egress policy holds
// at the network layer: for the document, each redirect, sub-resources, fetch/XHR, EventSource,
// WebSockets and workers alike. Each request's host is resolved once, checked, and the connection
// made to exactly the address that was checked. It serves only the service's own browser: any other
// local process gets 407. No client input may crash it: every failure is answered or the socket cut.
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Lifecycle } from '../lifecycle.js';
import type { EgressPolicy } from './policy.js';
import { connectReason, EgressFailures } from './failures.js';
import { connectTarget, forwardTarget } from './proxy-target.js';

/**
 * Set on the proxy's own answers: "blocked" on its refusals, so the renderer can tell "blocked by
 * policy" from an origin's 403; "unreachable" on its 502s, when the origin could not be reached.
 */
export const BLOCKED_HEADER = 'x-pagewatch-egress';
/** On an "unreachable" 502: why, as a Node error code (ECONNREFUSED, ENOTFOUND...). */
export const REASON_HEADER = 'x-pagewatch-egress-reason';

/** Requests that carry no body, so sending one again is safe (see `forward`). */
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
const isStale = (err: unknown) => ['ECONNRESET', 'EPIPE'].includes((err as { code?: string }).code ?? '');

const HOP_BY_HOP = [
  'proxy-connection',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

// 407 is the proxy's "who are you?"; there are no credentials to give, only our browser passes.
const NOT_OUR_BROWSER = { 'proxy-authenticate': 'Basic realm="pagewatch-egress"', connection: 'close' };

export interface BlockedRequest {
  target: string;
  reason: string;
}

export interface EgressProxyOptions {
  /** Whether the process at the other end of a connection is our own browser. Absent: any local process. */
  isOwnBrowser?: (socket: net.Socket) => Promise<boolean>;
}

export class EgressProxy
  extends EventEmitter<{
    blocked: [BlockedRequest];
    refusedClient: [{ port: number | undefined }];
  }>
  implements Lifecycle
{
  readonly name = 'egress proxy';
  private server: http.Server | undefined;
  private address: string | undefined;
  private readonly sockets = new Set<Duplex>();
  /** Each connection's client is checked once, as it connects (while its socket surely still exists). */
  private readonly clients = new WeakMap<net.Socket, Promise<boolean>>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  blockedCount = 0;
  /** Why origins could not be reached, per host:port (CONNECT failures reach Chromium without a reason). */
  readonly failures = new EgressFailures();

  constructor(
    private readonly policy: EgressPolicy,
    private readonly opts: EgressProxyOptions = {},
  ) {
    super();
  }

  /** Where the proxy listens (a free port, chosen at start): `http://127.0.0.1:<port>`. */
  get url(): string {
    if (this.address === undefined) throw new Error('the egress proxy has not started');
    return this.address;
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      this.forward(req, res).catch(() => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    });
    server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      this.tunnel(req, socket, head).catch(() => socket.destroy());
    });
    server.on('connection', (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      const check = this.opts.isOwnBrowser;
      if (check)
        this.clients.set(
          socket,
          check(socket).catch(() => false),
        );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    const { port } = server.address() as net.AddressInfo;
    this.address = `http://127.0.0.1:${port}`;
  }

  /** At once: the browser is stopped before it, so nothing in flight is worth waiting for. */
  async stop(_deadline?: number): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    if (this.server) await new Promise<void>((done) => this.server!.close(() => done()));
  }

  private refuse(target: string, reason: string): void {
    this.blockedCount++;
    this.emit('blocked', { target, reason });
  }

  /** The origin could not be reached: remember why, for the renderer to say it in words. */
  private unreachable(host: string, port: number, reason: string): Record<string, string> {
    this.failures.record(host, port, reason);
    return { [BLOCKED_HEADER]: 'unreachable', [REASON_HEADER]: reason };
  }

  private async fromOwnBrowser(socket: net.Socket): Promise<boolean> {
    const ok = await (this.clients.get(socket) ?? true);
    if (!ok) this.emit('refusedClient', { port: socket.remotePort });
    return ok;
  }

  /** Plain http:// requests arrive in absolute form: `GET http://host:port/path`. */
  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    req.on('error', () => res.destroy());
    const target = forwardTarget(req.url);
    if (!target) {
      res.writeHead(400, { [BLOCKED_HEADER]: 'bad-request' }).end();
      return;
    }
    if (!(await this.fromOwnBrowser(req.socket))) {
      res.writeHead(407, NOT_OUR_BROWSER).end();
      return;
    }
    const verdict = await this.policy.check(target.host);
    if (!verdict.allowed && verdict.unresolvable) {
      // Not the policy's refusal: the name does not exist (which says nothing about the internal network).
      res.writeHead(502, this.unreachable(target.host, target.port, 'ENOTFOUND')).end();
      return;
    }
    if (!verdict.allowed) {
      this.refuse(req.url ?? '', verdict.reason);
      res
        .writeHead(403, { 'content-type': 'text/plain', [BLOCKED_HEADER]: 'blocked' })
        .end('Blocked by the egress policy');
      return;
    }
    const headers = { ...req.headers };
    for (const h of HOP_BY_HOP) delete headers[h];
    const send = (agent: http.Agent | false) => {
      const upstream = http.request(
        {
          host: verdict.address,
          family: verdict.family,
          port: target.port,
          method: req.method,
          path: target.path,
          headers,
          setHost: false,
          agent,
        },
        (up) => {
          const out = { ...up.headers };
          // Only the proxy may say "blocked": an origin sending the marker must not fake a refusal.
          for (const h of [...HOP_BY_HOP, BLOCKED_HEADER, REASON_HEADER]) delete out[h];
          res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
          up.on('error', () => res.destroy()); // the origin reset mid-body: cut the client too
          up.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        // A kept-alive connection the origin closed just as we reused it: the request never reached
        // it, so one without a body is sent again, on a new connection (as Node's docs advise).
        if (upstream.reusedSocket && isStale(err) && !res.headersSent && BODYLESS.has(req.method ?? '')) {
          send(false).end();
          return;
        }
        // An empty 502, so Chromium fails the load (net::ERR_HTTP_RESPONSE_CODE_FAILURE) and shows no page of ours.
        if (!res.headersSent) res.writeHead(502, this.unreachable(target.host, target.port, connectReason(err))).end();
        else res.destroy();
      });
      upstream.once('response', () => this.failures.clear(target.host, target.port));
      res.on('close', () => upstream.destroy());
      return upstream;
    };
    req.pipe(send(this.agent));
  }

  /** https:// and WebSockets arrive as CONNECT host:port; TLS stays end to end. */
  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    // Before the tunnel is up the client still speaks HTTP to us; after, bytes are TLS: just cut it.
    let established = false;
    const reply = (status: string, headers = '') => {
      if (!client.destroyed) client.end(`HTTP/1.1 ${status}\r\n${headers}\r\n`);
    };
    let upstream: net.Socket | undefined;
    try {
      const target = connectTarget(req.url);
      if (!target) return reply('400 Bad Request');
      if (!(await this.fromOwnBrowser(req.socket))) {
        return reply(
          '407 Proxy Authentication Required',
          Object.entries(NOT_OUR_BROWSER)
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join(''),
        );
      }
      const verdict = await this.policy.check(target.host);
      if (!verdict.allowed && verdict.unresolvable) {
        this.unreachable(target.host, target.port, 'ENOTFOUND');
        return reply('502 Bad Gateway');
      }
      if (!verdict.allowed) {
        this.refuse(req.url ?? '', verdict.reason);
        return reply('403 Forbidden', `${BLOCKED_HEADER}: blocked\r\n`);
      }
      if (client.destroyed) return; // the client left while the host was checked
      const up = net.connect({ host: verdict.address, port: target.port, family: verdict.family });
      upstream = up;
      up.once('connect', () => {
        established = true;
        this.failures.clear(target.host, target.port);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) up.write(head);
        up.pipe(client);
        client.pipe(up);
      });
      up.on('error', (err) => {
        if (established) return client.destroy();
        this.unreachable(target.host, target.port, connectReason(err));
        reply('502 Bad Gateway');
      });
      client.on('close', () => up.destroy());
    } catch {
      upstream?.destroy();
      if (established) client.destroy();
      else reply('502 Bad Gateway');
    }
  }
}
