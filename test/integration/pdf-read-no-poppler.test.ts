// A machine without poppler-utils: the service stays ready with a warning (only monitors that watch a PDF
// need it), and a read fails at once saying what to install. poppler is hidden by running with a PATH
// that lacks it.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPdf } from '../../src/content/pdf-read.js';
import { pdfReaderAvailability } from '../../src/content/poppler.js';
import { AppError } from '../../src/errors.js';
import { healthRoutes } from '../../src/http/routes/health.js';

const savedPath = process.env.PATH;
let server: Server;
let url: string;

beforeAll(async () => {
  process.env.PATH = '/nonexistent';
  const app = new Koa();
  const readiness = {
    database: () => Promise.resolve(true),
    browser: () => Promise.resolve({ usable: true }),
    pdfText: () => pdfReaderAvailability(),
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

describe('without poppler-utils', () => {
  it('/ready stays ready and warns that watched PDFs cannot be read', async () => {
    const res = await fetch(`${url}/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { checks: Record<string, string>; warnings?: string[] };
    expect(body.checks.pdfText).toBe('warn');
    expect(body.warnings).toEqual([
      'Watched PDFs cannot be read: poppler-utils (pdfinfo, pdftotext, pdftoppm) is not installed, so captures of monitors that watch a PDF fail; install it (Debian: apt-get install poppler-utils).',
    ]);
  });

  it('a read fails at once with render_failed saying what to install', async () => {
    const error = await readPdf(
      Buffer.from('%PDF-1.7\n'),
      { maxPages: 5, picturePages: 1, timeoutMs: 5000, memoryMb: 256 },
      new AbortController().signal,
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('render_failed');
    expect((error as AppError).message).toBe(
      'The PDF could not be read: poppler-utils (pdftotext, pdftoppm) is not installed on the server; its operator installs it (Debian: apt-get install poppler-utils).',
    );
  });
});
