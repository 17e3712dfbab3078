// A stand-in for a chat service's incoming webhook (Slack, Discord, Teams, ntfy, a JSON receiver) on a
// loopback address: records every request whole (method, path with query, headers, body bytes) and answers
// as the test says — by default 200 "ok", as Slack does.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatHit {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface ChatReceiver {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  hits: ChatHit[];
  answer: (res: http.ServerResponse, hit: ChatHit) => void;
  close(): Promise<void>;
}

export async function startChatReceiver(host = '127.0.0.1'): Promise<ChatReceiver> {
  const receiver: ChatReceiver = {
    url: '',
    hits: [],
    answer: (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      receiver.hits.push(hit);
      receiver.answer(res, hit);
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  receiver.url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return receiver;
}
