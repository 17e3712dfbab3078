// Webhook POSTs to real receivers on 127.0.0.1: signed (checked by the reference implementation),
// no redirects followed, 410 recognised, timeouts bounded, and the egress policy enforced at send time
// with the checked address pinned.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/domain/key-material.js';
import { EgressPolicy } from '../../src/egress/policy.js';
import { sendWebhook } from '../../src/webhooks/send.js';
import { newMessageId, signedHeaders } from '../../src/webhooks/sign.js';

interface Receiver {
  url: string;
  port: number;
  hits: { headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

const open: Receiver[] = [];

async function receiver(answer: (res: http.ServerResponse) => void): Promise<Receiver> {
  const hits: Receiver['hits'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      answer(res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const r = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    hits,
    close: () =>
      new Promise<void>((d) => {
        server.closeAllConnections();
        server.close(() => d());
      }),
  };
  open.push(r);
  return r;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

const allowLoopback = new EgressPolicy({ allowPrivate: false, allowHosts: ['127.0.0.1'], denyHosts: [] });
const secret = newWebhookSecret();
const body = JSON.stringify({ type: 'job.succeeded', timestamp: new Date().toISOString(), data: { id: 'job_1' } });
const send = (policy: EgressPolicy, url: string, timeoutMs?: number) =>
  sendWebhook(policy, url, { ...signedHeaders([secret], newMessageId(), body) }, body, timeoutMs);

describe('sendWebhook', () => {
  it('delivers a body the receiver verifies with the reference implementation; 2xx is success', async () => {
    const r = await receiver((res) => res.writeHead(204).end());
    const result = await send(allowLoopback, r.url);
    expect(result).toMatchObject({ ok: true, status: 204, gone: false, blocked: false });
    const hit = r.hits[0]!;
    expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('does not follow a redirect: a 302 is a failed attempt and its target sees nothing', async () => {
    const elsewhere = await receiver((res) => res.writeHead(200).end());
    const r = await receiver((res) => res.writeHead(302, { location: elsewhere.url }).end());
    expect(await send(allowLoopback, r.url)).toMatchObject({ ok: false, status: 302 });
    expect(elsewhere.hits).toHaveLength(0);
  });

  it('recognises 410 Gone, and counts 4xx/5xx as failures', async () => {
    const gone = await receiver((res) => res.writeHead(410).end());
    expect(await send(allowLoopback, gone.url)).toMatchObject({ ok: false, status: 410, gone: true });
    const broken = await receiver((res) => res.writeHead(500).end('oops'));
    expect(await send(allowLoopback, broken.url)).toMatchObject({ ok: false, status: 500, gone: false });
  });

  it('gives up on a receiver that never answers, within its timeout', async () => {
    const hang = await receiver(() => undefined);
    const result = await send(allowLoopback, hang.url, 300);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/no answer within 300 ms/);
    expect(result.durationMs).toBeLessThan(3000);
  });

  it('refuses a private target under the default policy, sending nothing', async () => {
    const r = await receiver((res) => res.writeHead(200).end());
    const strict = new EgressPolicy({ allowPrivate: false, allowHosts: [], denyHosts: [] });
    for (const url of [
      r.url,
      `http://localhost:${r.port}/hook`,
      `http://[::ffff:127.0.0.1]:${r.port}/hook`,
      'http://169.254.169.254/latest',
    ]) {
      expect(await send(strict, url)).toMatchObject({ ok: false, blocked: true });
    }
    expect(r.hits).toHaveLength(0);
  });

  it('connects to the address it checked, once, whatever the name resolves to later (rebinding)', async () => {
    const r = await receiver((res) => res.writeHead(200).end());
    let lookups = 0;
    // First answer: the allowed receiver; any later answer would be the metadata address.
    const rebinding = new EgressPolicy({ allowPrivate: false, allowHosts: ['127.0.0.1/32'], denyHosts: [] }, () =>
      Promise.resolve([{ address: lookups++ === 0 ? '127.0.0.1' : '169.254.169.254', family: 4 }]),
    );
    const result = await send(rebinding, `http://hooks.test:${r.port}/hook`);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(lookups).toBe(1);
    expect(r.hits[0]!.headers.host).toBe(`hooks.test:${r.port}`);
  });
});
