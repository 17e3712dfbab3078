// An HTTP proxy on 127.0.0.1 that all of Chromium's traffic goes through, so the egress policy holds
// at the network layer: for the document, each redirect, sub-resources, fetch/XHR, EventSource,
// WebSockets and workers alike. Each request's host is resolved once, checked, and the connection
// made to exactly the address that was checked.
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressPolicy } from './policy.js';

/** Set on the proxy's refusals, so the renderer can tell "blocked by policy" from an origin's 403. */
export const BLOCKED_HEADER = 'x-pagewatch-egress';

const HOP_BY_HOP = ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

export interface BlockedRequest { target: string; reason: string }

export class EgressProxy extends EventEmitter<{ blocked: [BlockedRequest] }> {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Duplex>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  blockedCount = 0;

  constructor(private readonly policy: EgressPolicy) {
    super();
  }

  async start(): Promise<string> {
    const server = http.createServer((req, res) => { void this.forward(req, res); });
    server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => { void this.tunnel(req, socket, head); });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    const { port } = server.address() as net.AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    if (this.server) await new Promise<void>((done) => this.server!.close(() => done()));
  }

  private refuse(target: string, reason: string): void {
    this.blockedCount++;
    this.emit('blocked', { target, reason });
  }

  /** Plain http:// requests arrive in absolute form: `GET http://host:port/path`. */
  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('only http in absolute form');
    } catch {
      res.writeHead(400, { [BLOCKED_HEADER]: 'bad-request' }).end();
      return;
    }
    const verdict = await this.policy.check(url.hostname);
    if (!verdict.allowed) {
      this.refuse(url.href, verdict.reason);
      res.writeHead(403, { 'content-type': 'text/plain', [BLOCKED_HEADER]: 'blocked' }).end('Blocked by the egress policy');
      return;
    }
    const headers = { ...req.headers };
    for (const h of HOP_BY_HOP) delete headers[h];
    const upstream = http.request({
      host: verdict.address, family: verdict.family, port: url.port || 80, method: req.method,
      path: `${url.pathname}${url.search}`, headers, setHost: false, agent: this.agent,
    }, (up) => {
      const out = { ...up.headers };
      // Only the proxy may say "blocked": an origin sending the marker must not fake a refusal.
      for (const h of [...HOP_BY_HOP, BLOCKED_HEADER]) delete out[h];
      res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
      up.pipe(res);
    });
    upstream.on('error', () => { if (!res.headersSent) res.writeHead(502).end(); else res.destroy(); });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /** https:// and WebSockets arrive as CONNECT host:port; TLS stays end to end. */
  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const target = req.url ?? '';
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const verdict = await this.policy.check(match[1]!);
    if (!verdict.allowed) {
      this.refuse(target, verdict.reason);
      client.end(`HTTP/1.1 403 Forbidden\r\n${BLOCKED_HEADER}: blocked\r\n\r\n`);
      return;
    }
    const upstream = net.connect({ host: verdict.address, port: Number(match[2]), family: verdict.family });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // Before the tunnel is up the client still speaks HTTP to us; after, bytes are TLS: just cut it.
    upstream.on('error', () => (upstream.connecting ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : client.destroy()));
    client.on('close', () => upstream.destroy());
  }
}
