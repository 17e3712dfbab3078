// EgressPolicy decided on injected DNS answers (no real DNS), and EgressProxy on real sockets: what it
// refuses never reaches the canary, what it allows does (positive control), and it connects to the
// address it checked instead of resolving the name a second time (DNS rebinding).
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EgressPolicy, type EgressConfig, type Lookup } from '../../src/egress/policy.js';
import { BLOCKED_HEADER, EgressProxy } from '../../src/egress/proxy.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

const ON: EgressConfig = { allowPrivate: false, allowHosts: [], denyHosts: [] };
const PUBLIC = '93.184.215.14'; // global unicast (example.com)
const PUBLIC6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** A lookup answering from a table (a function of the call count for rebinding), recording each call. */
function fakeDns(answers: Record<string, readonly string[] | ((call: number) => readonly string[])>) {
  const calls: string[] = [];
  const lookup: Lookup = (host) => {
    calls.push(host);
    const entry = answers[host];
    if (!entry) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    const list = typeof entry === 'function' ? entry(calls.filter((h) => h === host).length) : entry;
    return Promise.resolve(list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return { lookup, calls };
}

const policyWith = (config: Partial<EgressConfig>, answers: Parameters<typeof fakeDns>[0] = {}) =>
  new EgressPolicy({ ...ON, ...config }, fakeDns(answers).lookup);

// Every one of these must be refused, as a literal and as the answer for a name.
const NOT_PUBLIC: [string, string][] = [
  ['loopback', '127.0.0.1'],
  ['loopback /8', '127.255.0.9'],
  ['private 10/8', '10.0.0.1'],
  ['private 172.16/12', '172.16.5.4'],
  ['private 192.168/16', '192.168.1.1'],
  ['link-local / metadata', '169.254.169.254'],
  ['CGNAT', '100.64.0.1'],
  ['benchmarking 198.18/15', '198.18.0.1'],
  ['unspecified', '0.0.0.0'],
  ['broadcast', '255.255.255.255'],
  ['multicast', '224.0.0.1'],
  ['reserved 240/4', '240.0.0.1'],
  ['IPv6 loopback', '::1'],
  ['IPv6 unspecified', '::'],
  ['IPv6 link-local', 'fe80::1'],
  ['IPv6 unique-local', 'fc00::1'],
  ['IPv6 multicast', 'ff02::1'],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
  ['IPv4-mapped loopback (hex)', '::ffff:7f00:1'],
  ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
  ['IPv4-translated (RFC 6145)', '::ffff:0:7f00:1'],
  ['IPv4-compatible loopback (dotted)', '::127.0.0.1'],
  // The same address as the line above, as WHATWG URL and DNS answers spell it.
  ['IPv4-compatible loopback (hex)', '::7f00:1'],
  ['IPv4-compatible metadata (hex)', '::a9fe:a9fe'],
  ['NAT64 (RFC 6052)', '64:ff9b::7f00:1'],
  ['6to4', '2002:7f00:1::'],
  ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
];

describe('EgressPolicy.check', () => {
  it.each(NOT_PUBLIC)('refuses %s (%s), as a literal and as a resolved name', async (_what, address) => {
    const dns = fakeDns({ 'evil.test': [address] });
    const policy = new EgressPolicy(ON, dns.lookup);
    expect(await policy.check(address)).toMatchObject({ allowed: false });
    expect(await policy.check(address.includes(':') ? `[${address}]` : address)).toMatchObject({ allowed: false });
    expect(await policy.check('evil.test')).toMatchObject({ allowed: false });
    expect(dns.calls).toEqual(['evil.test']); // literals are never looked up
  });

  it('allows a public name and hands back the address it checked', async () => {
    const policy = policyWith({}, { 'public.test': [PUBLIC], 'public6.test': [PUBLIC6] });
    expect(await policy.check('public.test')).toEqual({ allowed: true, address: PUBLIC, family: 4 });
    expect(await policy.check('PUBLIC.test.')).toEqual({ allowed: true, address: PUBLIC, family: 4 });
    expect(await policy.check('public6.test')).toEqual({ allowed: true, address: PUBLIC6, family: 6 });
    expect(await policy.check(PUBLIC)).toEqual({ allowed: true, address: PUBLIC, family: 4 });
  });

  it('refuses a name when any of its answers is not public (in either order)', async () => {
    const policy = policyWith(
      {},
      { a: [PUBLIC, '10.0.0.5'], b: ['127.0.0.1', PUBLIC], c: ['192.168.0.1'], d: [PUBLIC6, '::1'] },
    );
    for (const name of ['a', 'b', 'c', 'd']) expect(await policy.check(name), name).toMatchObject({ allowed: false });
    // (The matcher is typed any; as unknown keeps that any out of the object.)
    expect(await policy.check('a')).toMatchObject({ reason: expect.stringContaining('10.0.0.5') as unknown });
  });

  it('resolves once per check and never looks past the answer it decided on', async () => {
    // Public on the first lookup, loopback afterwards: each check sees exactly one answer.
    const dns = fakeDns({ 'rebind.test': (n) => (n === 1 ? [PUBLIC] : ['127.0.0.1']) });
    const policy = new EgressPolicy(ON, dns.lookup);
    expect(await policy.check('rebind.test')).toEqual({ allowed: true, address: PUBLIC, family: 4 });
    expect(dns.calls).toEqual(['rebind.test']);
    expect(await policy.check('rebind.test')).toMatchObject({ allowed: false });
    expect(dns.calls).toEqual(['rebind.test', 'rebind.test']);
  });

  it('allowPrivate: true allows private literals and names', async () => {
    const policy = policyWith({ allowPrivate: true }, { 'intranet.test': ['10.1.2.3'] });
    expect(await policy.check('10.0.0.1')).toMatchObject({ allowed: true, address: '10.0.0.1' });
    expect(await policy.check('intranet.test')).toEqual({ allowed: true, address: '10.1.2.3', family: 4 });
    expect(await policy.check('169.254.169.254')).toMatchObject({ allowed: true });
  });

  it('allowHosts by exact name (case and trailing dot ignored), not other names at the same address', async () => {
    const policy = policyWith(
      { allowHosts: ['Intranet.test'] },
      { 'intranet.test': ['10.1.2.3'], 'other.test': ['10.1.2.3'] },
    );
    expect(await policy.check('intranet.test')).toEqual({ allowed: true, address: '10.1.2.3', family: 4 });
    expect(await policy.check('INTRANET.TEST.')).toMatchObject({ allowed: true });
    expect(await policy.check('other.test')).toMatchObject({ allowed: false });
    expect(await policy.check('10.1.2.3')).toMatchObject({ allowed: false });
  });

  it('allowHosts *.suffix matches subdomains only', async () => {
    const answers = {
      'a.corp.test': ['10.0.0.2'],
      'x.y.corp.test': ['10.0.0.3'],
      'corp.test': ['10.0.0.4'],
      'evilcorp.test': ['10.0.0.5'],
    };
    const policy = policyWith({ allowHosts: ['*.corp.test'] }, answers);
    expect(await policy.check('a.corp.test')).toMatchObject({ allowed: true, address: '10.0.0.2' });
    expect(await policy.check('x.y.corp.test')).toMatchObject({ allowed: true });
    expect(await policy.check('corp.test')).toMatchObject({ allowed: false });
    expect(await policy.check('evilcorp.test')).toMatchObject({ allowed: false });
  });

  it('allowHosts by IP and CIDR: matches the literal and any name resolving into it', async () => {
    const answers = {
      'one.test': ['10.0.0.7'],
      'in.test': ['10.8.3.4'],
      'out.test': ['10.9.0.1'],
      'v6.test': ['fd00::5'],
      localhost: ['127.0.0.1'],
    };
    const policy = policyWith({ allowHosts: ['10.0.0.7', '10.8.0.0/16', 'fd00::/8', '127.0.0.1'] }, answers);
    expect(await policy.check('10.0.0.7')).toMatchObject({ allowed: true });
    expect(await policy.check('one.test')).toMatchObject({ allowed: true, address: '10.0.0.7' });
    expect(await policy.check('10.8.200.1')).toMatchObject({ allowed: true });
    expect(await policy.check('in.test')).toMatchObject({ allowed: true, address: '10.8.3.4' });
    expect(await policy.check('::ffff:10.8.0.1')).toMatchObject({ allowed: true }); // mapped form of an allowed IPv4
    expect(await policy.check('out.test')).toMatchObject({ allowed: false });
    expect(await policy.check('v6.test')).toMatchObject({ allowed: true, family: 6 });
    expect(await policy.check('fe80::1')).toMatchObject({ allowed: false });
    // By design an IP entry allows the address, so every name resolving to it too (here: localhost).
    expect(await policy.check('localhost')).toMatchObject({ allowed: true, address: '127.0.0.1' });
  });

  it('denyHosts wins over allowHosts, allowPrivate and public addresses', async () => {
    const answers = {
      'public.test': [PUBLIC],
      'x.bad.test': [PUBLIC],
      'intranet.test': ['10.1.2.3'],
      'other.test': ['8.8.8.8', '93.184.1.1'],
    };
    const policy = policyWith(
      {
        allowPrivate: true,
        allowHosts: ['intranet.test', 'public.test'],
        denyHosts: ['intranet.test', 'public.test', '*.bad.test', '93.184.0.0/16'],
      },
      answers,
    );
    for (const host of ['public.test', 'x.bad.test', 'intranet.test', PUBLIC, 'other.test']) {
      expect(await policy.check(host), host).toMatchObject({ allowed: false });
    }
    expect(await policy.check('8.8.8.8')).toMatchObject({ allowed: true });
  });

  it('an unresolvable name is refused as unresolvable', async () => {
    const policy = policyWith({ allowPrivate: true }, { 'empty.test': [] });
    expect(await policy.check('nxdomain.test')).toMatchObject({ allowed: false, unresolvable: true });
    expect(await policy.check('empty.test')).toMatchObject({ allowed: false, unresolvable: true });
  });
});

describe('EgressPolicy.checkUrl', () => {
  const policy = policyWith({ allowPrivate: true }, { 'public.test': [PUBLIC] });

  it.each([
    'file:///etc/passwd',
    'FILE:///etc/passwd',
    'ftp://public.test/',
    'data:text/html,hi',
    'javascript:alert(1)',
    'view-source:http://public.test/',
    'chrome://version',
    'ws://public.test/',
    'gopher://public.test/',
    'not a url',
  ])('refuses %s even with allowPrivate', async (url) => {
    const verdict = await policy.checkUrl(url);
    expect(verdict.allowed).toBe(false);
    expect(verdict).not.toHaveProperty('unresolvable', true);
  });

  it('checks the host of http and https URLs, after URL normalisation', async () => {
    expect(await policy.checkUrl('https://public.test/x')).toMatchObject({ allowed: true, address: PUBLIC });
    const strict = policyWith({}, { 'public.test': [PUBLIC] });
    expect(await strict.checkUrl('http://public.test/')).toMatchObject({ allowed: true });
    for (const url of [
      'http://2130706433/',
      'http://0x7f000001/',
      'http://127.1/',
      'http://0/',
      'https://[::1]/',
      'http://user@127.0.0.1/',
    ]) {
      expect(await strict.checkUrl(url), url).toMatchObject({ allowed: false });
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// EgressProxy on real sockets

let canary: FixtureServer; // must never receive a request
let target: FixtureServer; // the positive controls' destination
let proxy: EgressProxy | undefined;
beforeAll(async () => {
  [canary, target] = await Promise.all([startFixtureServer(), startFixtureServer()]);
  for (const f of [canary, target])
    f.route('/secret', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('CANARY-SECRET');
    });
});
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
});
afterAll(async () => {
  await Promise.all([canary?.close(), target?.close()]);
});

async function startProxy(policy: EgressPolicy): Promise<number> {
  proxy = new EgressProxy(policy);
  await proxy.start();
  return Number(new URL(proxy.url).port);
}

/**
 * Writes `request` to the proxy on a fresh connection (and `tunneled` once a CONNECT was answered
 * 200); resolves with everything received until the connection closes.
 */
function raw(port: number, request: string, tunneled?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`no end of answer; got ${JSON.stringify(data)}`)));
    socket.on('data', (chunk: Buffer) => {
      const first = data === '';
      data += chunk.toString('latin1');
      if (first && tunneled !== undefined && /^HTTP\/1\.1 200/.test(data)) socket.write(tunneled);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
    socket.write(request);
  });
}

const get = (host: string, path = '/secret') =>
  `GET http://${host}${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
/** An origin-form request, as sent inside a CONNECT tunnel. */
const inTunnel = (host: string, path = '/secret') =>
  `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
const connect = (hostPort: string) => `CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n\r\n`;
const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const blockedHeader = new RegExp(`\\r\\n${BLOCKED_HEADER}: blocked\\r\\n`, 'i');

describe('EgressProxy', () => {
  it.each([
    ['GET 127.0.0.1', (p: number) => get(`127.0.0.1:${p}`)],
    ['GET localhost', (p: number) => get(`localhost:${p}`)],
    ['GET [::ffff:127.0.0.1]', (p: number) => get(`[::ffff:127.0.0.1]:${p}`)],
    ['CONNECT 127.0.0.1', (p: number) => connect(`127.0.0.1:${p}`)],
    ['CONNECT localhost', (p: number) => connect(`localhost:${p}`)],
    ['CONNECT 2130706433 (not canonicalised)', (p: number) => connect(`2130706433:${p}`)],
    ['CONNECT [::ffff:7f00:1]', (p: number) => connect(`[::ffff:7f00:1]:${p}`)],
  ])('refuses %s with 403 + blocked header; the canary gets nothing', async (_what, request) => {
    const port = await startProxy(policyWith({}, { localhost: ['127.0.0.1'] }));
    const blocked: unknown[] = [];
    proxy!.on('blocked', (b) => blocked.push(b));
    const answer = await raw(port, request(canary.port));
    expect(statusOf(answer)).toBe(403);
    expect(answer).toMatch(blockedHeader);
    expect(answer).not.toContain('CANARY-SECRET');
    expect(blocked).toHaveLength(1);
    expect(proxy!.blockedCount).toBe(1);
    expect(canary.requests).toEqual([]);
  });

  it('positive control: with 127.0.0.1 allowed, GET and CONNECT reach the server', async () => {
    const port = await startProxy(policyWith({ allowHosts: ['127.0.0.1'] }));
    target.requests.length = 0;
    const viaGet = await raw(port, get(`127.0.0.1:${target.port}`));
    expect(statusOf(viaGet)).toBe(200);
    expect(viaGet).toContain('CANARY-SECRET');
    const viaConnect = await raw(port, connect(`127.0.0.1:${target.port}`), inTunnel(`127.0.0.1:${target.port}`));
    expect(viaConnect).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 /);
    expect(viaConnect).toContain('CANARY-SECRET');
    expect(target.requests.map((r) => r.path)).toEqual(['/secret', '/secret']);
    expect(proxy!.blockedCount).toBe(0);
  });

  /*
   * Pinning (DNS rebinding). `rebind.test` answers 127.0.0.1 on the first lookup and 127.0.0.2 on
   * every later one; the policy allows only 127.0.0.1/32. The target listens on 127.0.0.1:P and a
   * trap listens on 127.0.0.2:P (same port). A proxy that checks one answer and connects to it:
   * lookup called once, the target gets the request, the trap nothing. A proxy that resolved again
   * to connect would hit the trap (or, with the system resolver, fail: `rebind.test` does not exist
   * there → 502); one that checked twice would refuse the second answer (403). The next request
   * proves the later answer is indeed refused, so the trap is a real "forbidden" address.
   */
  describe('pins the checked address', () => {
    let trap: net.Server;
    let trapConnections = 0;
    beforeAll(async () => {
      trap = net.createServer((socket) => {
        trapConnections++;
        socket.destroy();
      });
      await new Promise<void>((done, fail) => {
        trap.once('error', fail);
        trap.listen(target.port, '127.0.0.2', done);
      });
    });
    afterAll(async () => {
      await new Promise((done) => trap.close(done));
    });

    it.each([
      ['GET', (p: number) => [get(`rebind.test:${p}`, '/secret?pinned')] as const],
      [
        'CONNECT',
        (p: number) => [connect(`rebind.test:${p}`), inTunnel(`rebind.test:${p}`, '/secret?pinned')] as const,
      ],
    ])('%s: one lookup, connection to the first answer, later answers refused', async (_what, requestFor) => {
      trapConnections = 0;
      target.requests.length = 0;
      const dns = fakeDns({ 'rebind.test': (n) => (n === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
      const port = await startProxy(new EgressPolicy({ ...ON, allowHosts: ['127.0.0.1/32'] }, dns.lookup));
      const [request, tunneled] = requestFor(target.port);

      const answer = await raw(port, request, tunneled);
      expect(answer).toContain('CANARY-SECRET');
      expect(dns.calls).toEqual(['rebind.test']);
      expect(target.requests.map((r) => [r.path, r.headers.host])).toEqual([
        ['/secret?pinned', `rebind.test:${target.port}`],
      ]);
      expect(trapConnections).toBe(0);

      const second = await raw(port, request, tunneled);
      expect(statusOf(second)).toBe(403);
      expect(dns.calls).toEqual(['rebind.test', 'rebind.test']);
      expect(target.requests).toHaveLength(1);
      expect(trapConnections).toBe(0);
    });
  });
});
