// A machine without qpdf: the service's renders do not need it, so it stays ready with a warning, and
// every PDF tool answers 503 saying what is missing. qpdf is hidden by running with a PATH that lacks it.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { healthRoutes } from '../../src/http/routes/health.js';
import { QpdfPdfEngine } from '../../src/pdf/pdf-engine.js';

const savedPath = process.env.PATH;
let server: Server;
let url: string;

beforeAll(async () => {
  process.env.PATH = '/nonexistent';
  const app = new Koa();
  const readiness = {
    database: () => Promise.resolve(true),
    browser: () => Promise.resolve({ usable: true }),
    pdfTools: () => QpdfPdfEngine.availability(),
    sandbox: { enabled: true },
  };
  app.use(healthRoutes(readiness).routes());
  const handle = app.callback();
  server = createServer((req, res) => void handle(req, res)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  process.env.PATH = savedPath;
  server.close();
});

describe('without qpdf', () => {
  it('/ready stays ready and warns that the PDF tools are unavailable', async () => {
    const res = await fetch(`${url}/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { checks: Record<string, string>; warnings?: string[] };
    expect(body.checks.pdfTools).toBe('warn');
    expect(body.warnings).toEqual([
      'The PDF tools are unavailable: qpdf is not installed, so the PDF tools answer 503; install it (Debian: apt-get install qpdf).',
    ]);
  });

  it('every engine call answers 503 saying qpdf is missing', async () => {
    const engine = new QpdfPdfEngine({ timeoutMs: 5000, memoryMb: 256, maxPages: 10, maxFiles: 2 }, () =>
      Promise.reject(new Error('no stamps')),
    );
    const pdf = Buffer.from('%PDF-1.7\n');
    for (const call of [
      engine.process([{ bytes: pdf, path: 'file' }], {}),
      engine.readMetadata({ bytes: pdf, path: 'file' }),
      engine.finish(pdf, { flatten: true }),
    ]) {
      const error = await call.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(503);
      expect((error as AppError).message).toBe(
        'The PDF tools are unavailable: qpdf is not installed on the server; its operator installs it (Debian: apt-get install qpdf).',
      );
    }
  });
});
