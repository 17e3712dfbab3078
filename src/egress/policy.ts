// Which hosts the service may reach — for every request the browser makes (through the egress
// proxy) and, later, every webhook. Decided on resolved addresses, not on URL text: a name that
// resolves to a private address is as private as the address itself.
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface EgressConfig {
  allowPrivate: boolean;
  allowHosts: readonly string[];
  denyHosts: readonly string[];
}

export type Verdict =
  { allowed: true; address: string; family: 4 | 6 } | { allowed: false; reason: string; unresolvable?: boolean };

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

const defaultLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Only globally routable unicast addresses are public; every other range ipaddr.js knows is not.
 * IPv6 must also lie in 2000::/3: ipaddr.js calls IPv4-compatible forms such as ::7f00:1
 * (= ::127.0.0.1) "unicast", and a host that routes ::/96 would reach loopback through them.
 */
export function isPublicAddress(address: string): boolean {
  const ip = ipaddr.parse(address);
  return ip.range() === 'unicast' && (ip.kind() === 'ipv4' || ip.match(GLOBAL_UNICAST_V6));
}

/** Host as it appears in a URL or CONNECT line, made comparable: lower case, no brackets or trailing dot. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

class HostPattern {
  private readonly cidr: [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined;

  constructor(private readonly pattern: string) {
    const p = normalizeHost(pattern);
    this.pattern = p;
    this.cidr = ipaddr.isValidCIDR(p)
      ? ipaddr.parseCIDR(p)
      : ipaddr.isValid(p)
        ? ipaddr.parseCIDR(`${p}/${p.includes(':') ? 128 : 32}`)
        : undefined;
  }

  matchesHost(host: string): boolean {
    if (this.pattern.startsWith('*.')) return host.endsWith(this.pattern.slice(1));
    return host === this.pattern;
  }

  matchesAddress(address: string): boolean {
    if (!this.cidr) return false;
    const parsed = ipaddr.process(address);
    return parsed.kind() === this.cidr[0].kind() && parsed.match(this.cidr);
  }
}

export class EgressPolicy {
  private readonly allow: HostPattern[];
  private readonly deny: HostPattern[];

  constructor(
    private readonly config: EgressConfig,
    private readonly lookup: Lookup = defaultLookup,
  ) {
    this.allow = config.allowHosts.map((p) => new HostPattern(p));
    this.deny = config.denyHosts.map((p) => new HostPattern(p));
  }

  /**
   * Resolve `rawHost` once and decide. The caller must connect to the returned address, never
   * resolve again: a second answer could differ (DNS rebinding).
   */
  async check(rawHost: string): Promise<Verdict> {
    const host = normalizeHost(rawHost);
    if (this.deny.some((p) => p.matchesHost(host))) return { allowed: false, reason: `${host} is in egress.denyHosts` };
    const allowedByName = this.allow.some((p) => p.matchesHost(host));

    let addresses: { address: string; family: number }[];
    if (ipaddr.isValid(host)) {
      addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
    } else {
      try {
        addresses = await this.lookup(host);
      } catch {
        return { allowed: false, reason: `${host} could not be resolved`, unresolvable: true };
      }
      if (addresses.length === 0)
        return { allowed: false, reason: `${host} could not be resolved`, unresolvable: true };
    }

    for (const { address } of addresses) {
      if (this.deny.some((p) => p.matchesAddress(address)))
        return { allowed: false, reason: `${address} is in egress.denyHosts` };
    }
    const allowed = (address: string) =>
      allowedByName ||
      this.config.allowPrivate ||
      this.allow.some((p) => p.matchesAddress(address)) ||
      isPublicAddress(address);
    // Every answer must pass: a name with one public and one private address is refused, or an
    // attacker could steer which one is used.
    const refused = addresses.find(({ address }) => !allowed(address));
    if (refused) {
      const what = refused.address === host ? host : `${host} resolves to ${refused.address}, which`;
      return { allowed: false, reason: `${what} is not a public address` };
    }
    const first = addresses[0]!;
    return { allowed: true, address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  /** The same decision for a URL: only http and https are ever allowed. */
  async checkUrl(url: string): Promise<Verdict> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { allowed: false, reason: 'not a valid URL' };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return { allowed: false, reason: `${parsed.protocol} URLs are not allowed` };
    return this.check(parsed.hostname);
  }
}
