// A webhook receiver on 127.0.0.1 for integration tests: records every POST (headers, body, time)
// and answers as the test says — by default 204.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Hit {
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Answer = (res: http.ServerResponse, hit: Hit, index: number) => void;

export interface WebhookReceiver {
  url: string;
  hits: Hit[];
  /** Change how later POSTs are answered. */
  answer: Answer;
  /** Resolves once `count` POSTs have arrived (rejects after `timeoutMs`). */
  waitForHits(count: number, timeoutMs?: number): Promise<Hit[]>;
  close(): Promise<void>;
}

export const ok: Answer = (res) => {
  res.writeHead(204).end();
};

export async function startWebhookReceiver(answer: Answer = ok): Promise<WebhookReceiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    hits: [],
    answer,
    waitForHits: (count, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        if (receiver.hits.length >= count) return resolve(receiver.hits);
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} webhook POSTs, got ${receiver.hits.length} in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(receiver.hits);
          },
        });
      }),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const hit = { headers: req.headers as Record<string, string>, body, at: Date.now() };
      receiver.hits.push(hit);
      receiver.answer(res, hit, receiver.hits.length - 1);
      for (const w of waiters.filter((w) => receiver.hits.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** Verify with the reference implementation (the `standardwebhooks` package); throws if it fails. */
export function verifyHit(
  secret: string,
  hit: Hit,
): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(hit.body, hit.headers) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}
