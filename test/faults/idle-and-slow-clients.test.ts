// Clients that hold connections without finishing a request (the fault 3): 300 idle
// connections and 20 that send their headers a byte at a time keep no one else out — /health and a
// render are answered meanwhile — and a 200 MB body is refused with 413 long before it has been sent.
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const IDLE = 300;
const SLOW = 20;

describe('idle and slow clients', () => {
  let svc: TestService;
  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    for (const t of timers) clearInterval(t);
    for (const s of sockets) s.destroy();
    await svc?.close();
  });

  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(new URL(svc.url).port), '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
      sockets.push(socket);
    });

  it(`${IDLE} idle and ${SLOW} slowloris connections: /health and a render are still answered`, async () => {
    await Promise.all(Array.from({ length: IDLE }, open));
    const slow = await Promise.all(Array.from({ length: SLOW }, open));
    for (const socket of slow) {
      socket.write('POST /api/pdf HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      timers.push(setInterval(() => socket.write('a'), 500));
    }
    for (let i = 0; i < 5; i++) expect((await fetch(`${svc.url}/health`)).status).toBe(200);
    const render = await svc.post('/api/image', { html: '<p>ok</p>', viewport: { width: 50, height: 50 } });
    expect(render.status).toBe(200);
    // Every slow connection is still open: the answers above did not come from their having been dropped.
    expect(slow.filter((s) => s.destroyed)).toEqual([]);
  });

  it('a 200 MB body is refused with 413 once it passes limits.maxBodyBytes, not after it has all been sent', async () => {
    const total = 200 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${svc.url}/api/pdf`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(total) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        // The server may close the connection as it refuses: the answer may still have come first.
        if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
      });
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(total / 4); // refused at 8 MiB-ish (the anonymous limit is lower), not at 200 MB
  });
});
