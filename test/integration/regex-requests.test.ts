// A request field that meets a regular expression cannot hold the event loop (security review, issue
// #22). The attack: a PDF margin, width or height of "1", a long run of spaces and "x". The CSS-length
// pattern had two adjacent `\s*`, so checking 160,000 spaces held /health for 7.9 s, and the time grows
// with the square of the length. Now the field is capped (32 characters) and the pattern is linear.
// Each request is sent anonymously, at the anonymous tier's largest body, with /health asked at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

/** The anonymous tier's body limit (limits.anonymousMaxBodyBytes, 1 MiB by default). */
const ANONYMOUS_MAX_BODY = 1024 * 1024;
/**
 * How long the request and /health may take. A linear check of 1 MiB takes milliseconds, the old pattern
 * minutes at this size (8 s at 150 KB): 2 s leaves a loaded 2-core machine room and still tells them apart.
 */
const BOUND_MS = 2000;

/** `"1" + spaces + "x"`, as long as a body of `bodyBytes` leaves room for. */
const spaced = (bodyBytes: number, around: (value: string) => string) => {
  const room = bodyBytes - around('').length - 2;
  return around(JSON.stringify(`1${' '.repeat(room)}x`).slice(1, -1));
};

describe('regexes under hostile request fields', () => {
  let service: TestService;

  beforeAll(async () => {
    // The real anonymous body limit (test services relax the anonymous tier's other limits only).
    service = await startTestService({ limits: { anonymousMaxBodyBytes: ANONYMOUS_MAX_BODY } });
  });
  afterAll(async () => {
    await service?.close();
  });

  const bodies: [string, string][] = [
    ['margin.top', spaced(ANONYMOUS_MAX_BODY, (v) => `{"html":"<p>x</p>","margin":{"top":"${v}"}}`)],
    ['width', spaced(ANONYMOUS_MAX_BODY, (v) => `{"html":"<p>x</p>","width":"${v}","height":"10mm"}`)],
    ['height', spaced(ANONYMOUS_MAX_BODY, (v) => `{"html":"<p>x</p>","width":"10mm","height":"${v}"}`)],
    ['pageRanges', spaced(ANONYMOUS_MAX_BODY, (v) => `{"html":"<p>x</p>","pageRanges":"${v}"}`)],
  ];

  it.each(bodies)('%s of 1 MiB is a 400 at once, and /health answers meanwhile', async (path, body) => {
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(ANONYMOUS_MAX_BODY);
    const started = performance.now();
    const timed = async (pending: Promise<Response>) => {
      const res = await pending;
      return { res, ms: performance.now() - started };
    };
    const [render, health] = await Promise.all([
      timed(fetch(`${service.url}/api/pdf`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })),
      timed(fetch(`${service.url}/health`)),
    ]);
    expect(render.res.status).toBe(400);
    const error = await errorOf(render.res);
    expect(error.details?.find((d) => d.path === path)?.message).toMatch(/can be at most [\d,]+ characters long/);
    expect(health.res.status).toBe(200);
    expect(render.ms).toBeLessThan(BOUND_MS);
    expect(health.ms).toBeLessThan(BOUND_MS);
  });
});
