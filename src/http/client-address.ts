// Which client an anonymous request counts against. One person holds a whole IPv6 /64 (a home or a
// server gets at least that much), so per-address limits keyed on the full IPv6 address would give
// them 2^64 buckets: they share one per /64. An IPv4-mapped IPv6 address (::ffff:1.2.3.4, how a
// dual-stack socket reports an IPv4 peer) is that IPv4 address.
import ipaddr from 'ipaddr.js';

/** The rate-limit and concurrency key for a client address: "1.2.3.4", or "2001:db8:1:2::/64". */
export function clientAddressKey(ip: string): string {
  // Not an address at all (a proxy wrote garbage): counted as itself, so it still has a bucket.
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip); // unwraps ::ffff:a.b.c.d
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
