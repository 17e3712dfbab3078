// The request contract's checks, shared by the tests over the real service (test/integration) and over
// the fake renderer (test/http): the error shape, validation details, bodies of an exact size, and raw
// POSTs that fetch cannot make.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { errorOf } from './service.js';

/** POST a body as-is with the given Content-Type (or none at all). */
export const postRaw = (
  service: { url: string },
  path: string,
  body: string | Uint8Array<ArrayBuffer>,
  contentType?: string,
  headers: Record<string, string> = {},
) =>
  fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { ...(contentType !== undefined && { 'content-type': contentType }), ...headers },
    body,
  });

export interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
  requestId: string;
}

/** Asserts status + code + the full error shape, and that body.requestId equals the X-Request-Id header. */
export async function expectError(res: Response, status: number, code: string): Promise<ErrorBody['error']> {
  expect(res.status, `expected ${status} ${code}`).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  const body = (await res.clone().json()) as ErrorBody;
  expect(body.requestId).toBe(requestId);
  expect(Object.keys(body).sort()).toEqual(['error', 'requestId']);
  const err = await errorOf(res);
  expect(err.code).toBe(code);
  expect(typeof err.message).toBe('string');
  expect(err.message.length).toBeGreaterThan(0);
  expect(res.headers.get('content-disposition')).toBeNull();
  return err;
}

export async function expectInvalid(res: Response, ...paths: string[]): Promise<{ path: string; message: string }[]> {
  const err = await expectError(res, 400, 'invalid_request');
  expect(Array.isArray(err.details), 'details is a list').toBe(true);
  const details = err.details ?? [];
  for (const d of details) {
    expect(typeof d.path).toBe('string');
    expect(typeof d.message).toBe('string');
    expect(d.message.length).toBeGreaterThan(0);
  }
  for (const path of paths) {
    expect(
      details.map((d) => d.path),
      `details name ${path}`,
    ).toContain(path);
  }
  return details;
}

/** A JSON body `{"html": "<p>xxx…</p>"}` of exactly `bytes` bytes (UTF-8). */
export function jsonOfSize(bytes: number, filler = 'x'): string {
  const head = '{"html":"<p>';
  const tail = '</p>"}';
  const fillerBytes = Buffer.byteLength(filler);
  const room = bytes - Buffer.byteLength(head + tail);
  const body = head + filler.repeat(Math.floor(room / fillerBytes)) + 'y'.repeat(room % fillerBytes) + tail;
  expect(Buffer.byteLength(body)).toBe(bytes);
  JSON.parse(body);
  return body;
}

/** An HTML document of exactly `bytes` bytes. */
export function htmlOfSize(bytes: number): string {
  const head = '<!doctype html><p>';
  const body = head + 'h'.repeat(bytes - head.length);
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

/**
 * A POST through node:http, for what fetch cannot do: a Content-Length that promises more than is sent,
 * or a chunked body streamed piece by piece. Resolves with the response as soon as it arrives; write
 * errors after the server answered (it may close the connection) are ignored.
 */
export function streamingPost(
  url: string,
  opts: { headers: Record<string, string>; chunks: Buffer[]; end: boolean; gapMs?: number },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: 'POST', headers: opts.headers }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    void (async () => {
      for (const chunk of opts.chunks) {
        if (answered || req.destroyed) return;
        req.write(chunk);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      if (opts.end && !answered) req.end();
    })();
  });
}
