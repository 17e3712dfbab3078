// Why the egress proxy could not reach an origin, kept for a short while per host:port so the renderer
// can say it in words. Chromium reports a failed CONNECT only as net::ERR_TUNNEL_CONNECTION_FAILED and
// a failed plain-http forward only as net::ERR_HTTP_RESPONSE_CODE_FAILURE: neither says refused, not
// found or timed out. The reason is a Node error code (ECONNREFUSED, ENOTFOUND...), never an address.

/** How long a failure stays readable: the render that caused it asks within its own timeout. */
const KEEP_MS = 5 * 60_000;
/** At most this many host:port failures are kept (the oldest go first): a page can ask for many hosts. */
const MAX_ENTRIES = 512;

export const hostPort = (host: string, port: number | string) =>
  `${host.toLowerCase().replace(/^\[(.*)\]$/, '$1')}:${port}`;

export class EgressFailures {
  private readonly byTarget = new Map<string, { reason: string; at: number }>();

  record(host: string, port: number, reason: string): void {
    const key = hostPort(host, port);
    this.byTarget.delete(key); // re-inserted last: the map's order is the age order
    this.byTarget.set(key, { reason, at: Date.now() });
    for (const oldest of this.byTarget.keys()) {
      if (this.byTarget.size <= MAX_ENTRIES) break;
      this.byTarget.delete(oldest);
    }
  }

  /** The origin answered: an earlier failure no longer explains anything. */
  clear(host: string, port: number): void {
    if (this.byTarget.size) this.byTarget.delete(hostPort(host, port));
  }

  /** The last failure's reason for `url`'s host:port, if one happened in the last few minutes. */
  reasonFor(url: string): string | undefined {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    const entry = this.byTarget.get(hostPort(u.hostname, port));
    return entry && Date.now() - entry.at <= KEEP_MS ? entry.reason : undefined;
  }
}

/** The Node error code of a failed connect, or a fallback that still says it was the connection. */
export function connectReason(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : 'ECONNFAILED';
}
