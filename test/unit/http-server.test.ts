// The HTTP server's stop: in-flight work is drained until the deadline, then connections are cut.
// A real server on a free port; the "render" is a promise the test controls.
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/log.js';

const log = createLogger('silent');

/**
 * A server whose one route waits for `finish()`. `drained` (what the server waits for at stop) resolves
 * once no such request is open; `drainAsked` resolves when the server first asks for it.
 */
function slowServer() {
  let open = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((done) => (release = done));
  let entered: () => void = () => undefined;
  const started = new Promise<void>((done) => (entered = done));
  const idle: (() => void)[] = [];
  const app = new Koa();
  app.use(async (ctx) => {
    open++;
    entered();
    await gate;
    open--;
    if (open === 0) idle.splice(0).forEach((done) => done());
    ctx.body = 'done';
  });
  let asked: () => void = () => undefined;
  const drainAsked = new Promise<void>((done) => (asked = done));
  const drained = () => {
    asked();
    return open === 0 ? Promise.resolve() : new Promise<void>((done) => idle.push(done));
  };
  const http = new HttpServer(app, { port: 0, host: '127.0.0.1', drained, log });
  return { http, finish: () => release(), started, drainAsked };
}

let running: HttpServer | undefined;
afterEach(async () => {
  await running?.stop(Date.now());
  running = undefined;
});

describe('HttpServer', () => {
  it('listens at start, on the port the system chose', async () => {
    const { http, finish } = slowServer();
    running = http;
    await http.start();
    expect(http.port).toBeGreaterThan(0);
    finish();
    const res = await fetch(`http://127.0.0.1:${http.port}/`);
    expect(await res.text()).toBe('done');
  });

  it('at stop, lets a request in flight finish and answer, then stops', async () => {
    const { http, finish, started, drainAsked } = slowServer();
    running = http;
    await http.start();
    const order: string[] = [];
    const answer = fetch(`http://127.0.0.1:${http.port}/`).then((r) => r.text());
    void answer.then(() => order.push('answered'));
    await started;
    const stopping = http.stop(Date.now() + 30_000).then(() => order.push('stopped'));
    await drainAsked;
    finish();
    expect(await answer).toBe('done');
    await stopping;
    expect(order).toEqual(['answered', 'stopped']);
  });

  it('at the deadline, stops without waiting for the drain and cuts the connection', async () => {
    const { http, finish, started } = slowServer();
    running = http;
    await http.start();
    const answer = fetch(`http://127.0.0.1:${http.port}/`).then(
      (r) => r.text(),
      (err: unknown) => err,
    );
    await started;
    const begun = Date.now();
    await http.stop(Date.now() + 200);
    // Bounded by the deadline (200 ms), not by the request, which is never let go before this.
    expect(Date.now() - begun).toBeLessThan(5_000);
    expect(await answer).toBeInstanceOf(Error);
    finish();
  });
});
