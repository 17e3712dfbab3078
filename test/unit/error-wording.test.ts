// Every refusal is one plain sentence that names the field, gives the limit in human units and says what
// to do: zod's issues mapped centrally (src/http/issue-words.ts), the limits' messages (errors.ts) and a
// failed page load in words (src/render/load/network-errors.ts). Codes and field paths never change.
import { describe, expect, it } from 'vitest';
import { humanBytes, humanMs } from '../../src/domain/units.js';
import { AppError, payloadTooLarge, rateLimitMessage, renderTimeout, urlBlocked } from '../../src/errors.js';
import { parseBody } from '../../src/http/validate.js';
import { monitorSchema } from '../../src/http/schemas/monitors.js';
import { imageRequestSchema } from '../../src/http/schemas/render.js';
import { storedMessage } from '../../src/jobs/worker.js';
import { loadFailed, networkFailureMessage } from '../../src/render/load/network-errors.js';
import { refusalDetails } from '../helpers/refusal.js';

const limits = { maxFullPageHeight: 16_384, maxImagePixels: 50_000_000, maxTimeoutMs: 120_000 };
const image = imageRequestSchema(limits);
const monitor = monitorSchema({ ...limits, maxRetention: 1000, minIntervalSeconds: 60 });

/** The one detail for `body`, asserting there is exactly one. */
function only(schema: typeof image | typeof monitor, body: unknown) {
  const details = refusalDetails(schema, body);
  expect(details, JSON.stringify(details)).toHaveLength(1);
  return details[0]!;
}

describe('zod issues as sentences', () => {
  it.each([
    [
      'a number over its maximum, in px',
      { html: 'x', viewport: { width: 5000, height: 800 } },
      'viewport.width',
      'viewport.width can be at most 3,840 px: give a smaller number.',
    ],
    [
      'a number under its minimum, in seconds and ms',
      { html: 'x', timeout: 500 },
      'timeout',
      'timeout must be at least 1 s (1000 ms): give a larger number.',
    ],
    [
      'a timeout over the maximum',
      { html: 'x', timeout: 600_000 },
      'timeout',
      'timeout can be at most 2 min (120000 ms): give a smaller number.',
    ],
    [
      'a fraction where a whole number is needed',
      { html: 'x', format: 'jpeg', quality: 80.5 },
      'quality',
      'quality must be a whole number, not 80.5: round it.',
    ],
    [
      'the wrong type',
      { html: 'x', fullPage: 'yes' },
      'fullPage',
      'fullPage must be true or false, not text: change its type.',
    ],
    [
      'a value outside an enum',
      { html: 'x', waitUntil: 'soon' },
      'waitUntil',
      expect.stringMatching(
        /^waitUntil must be one of "load", "domcontentloaded", .*: pick one of these\.$/,
      ) as unknown as string,
    ],
    [
      'an unknown field',
      { html: 'x', colour: 'red' },
      'colour',
      'colour is not a field this request takes: check its spelling, or remove it.',
    ],
    [
      'a relative URL',
      { url: '/pricing' },
      'url',
      'url must be a full web address starting with http:// or https://, such as https://example.com/',
    ],
  ])('%s', (_what, body, path, message) => {
    expect(only(image, body)).toEqual({ path, message });
  });

  it('a required field that is missing, and an empty name', () => {
    expect(only(monitor, { schedule: '0 9 * * 1-5' })).toEqual({
      path: 'url',
      message: 'url is required: add it, as text (a JSON string).',
    });
    expect(only(monitor, { url: 'https://example.com/', schedule: '0 9 * * 1-5', name: ' ' }).message).toBe(
      'name cannot be empty: fill it in, or leave the field out.',
    );
  });

  it('a list over its maximum says what it holds', () => {
    const regions = Array.from({ length: 101 }, () => ({ x: 0, y: 0, width: 1, height: 1 }));
    expect(
      only(monitor, { url: 'https://example.com/', schedule: '0 9 * * 1-5', diff: { ignoreRegions: regions } }),
    ).toEqual({ path: 'diff.ignoreRegions', message: 'diff.ignoreRegions can hold at most 100 regions: remove some.' });
  });

  it("no message is zod's default wording", () => {
    const details = refusalDetails(image, {
      html: 'x',
      viewport: { width: 0, height: 99999 },
      delay: -1,
      deviceScaleFactor: 9,
      omitBackground: 1,
    });
    expect(details.length).toBeGreaterThanOrEqual(5);
    for (const { message } of details) {
      expect(message).not.toMatch(/Too big|Too small|expected .* to be|Invalid input|received/);
      expect(message).toMatch(/[.:]/);
    }
  });

  it('the top-level message: the one sentence, or how many fields and which', () => {
    const one = catchAppError(() => parseBody(image, { html: 'x', timeout: 500 }));
    expect(one.message).toBe(
      'The request has 1 invalid field: timeout must be at least 1 s (1000 ms): give a larger number.',
    );
    const two = catchAppError(() => parseBody(image, { html: 'x', timeout: 500, delay: -1 }));
    expect(two.message).toBe('The request has 2 invalid fields (delay and timeout); details has a sentence for each.');
  });
});

function catchAppError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('limits in human units', () => {
  it('bytes and milliseconds', () => {
    expect([humanBytes(1_048_576), humanBytes(8 * 1_048_576), humanBytes(1536), humanBytes(200)]).toEqual([
      '1 MiB',
      '8 MiB',
      '1.5 KiB',
      '200 bytes',
    ]);
    expect([humanMs(500), humanMs(3000), humanMs(90_000), humanMs(300_000)]).toEqual([
      '500 ms',
      '3 s',
      '90 s',
      '5 min',
    ]);
  });

  it('a body over the anonymous limit names the limit an API key gives', () => {
    expect(payloadTooLarge(1_048_576, 8_388_608).message).toBe(
      'The request body is larger than the limit of 1 MiB; send less, or use an API key, which raises the limit to 8 MiB.',
    );
    expect(payloadTooLarge(8_388_608).message).toBe(
      'The request body is larger than the limit of 8 MiB; send less, e.g. smaller inline images or fewer pages at a time.',
    );
  });

  it('the rate limit says the wait once, without naming a header', () => {
    const anonymous = rateLimitMessage(12, 20, true);
    expect(anonymous).toBe(
      'You have reached the limit of 20 requests a minute without an API key: wait 12 s and try again, or use an API key, which has a higher limit.',
    );
    expect(rateLimitMessage(3, 600, false)).toBe(
      'You have reached the limit of 600 requests a minute: wait 3 s and try again.',
    );
    expect(anonymous).not.toMatch(/Retry-After/);
  });

  it('a render timeout in seconds, with what to change', () => {
    expect(renderTimeout(30_000).message).toBe(
      'The render did not finish within its timeout of 30 s; raise timeout (in milliseconds, now 30000), or make the page ready sooner.',
    );
  });

  it('url_blocked says what to do, and nothing of the reason', () => {
    const err = urlBlocked('10.0.0.7 is not a public address');
    expect(err.message).toMatch(/^The URL is not allowed by the egress policy: .*; use an address on the internet/);
    expect(err.message).not.toContain('10.0.0.7');
  });
});

describe('a failed load in words', () => {
  const url = 'https://shop.example:8443/cart';
  it.each([
    ['net::ERR_CONNECTION_REFUSED', {}, /^Connection refused: nothing is listening at shop\.example:8443;/],
    ['net::ERR_TUNNEL_CONNECTION_FAILED', { proxyReason: 'ECONNREFUSED' }, /^Connection refused:/],
    ['net::ERR_NAME_NOT_RESOLVED', {}, /^Host not found: shop\.example does not resolve/],
    ['net::ERR_HTTP_RESPONSE_CODE_FAILURE', { proxyReason: 'ENOTFOUND' }, /^Host not found:/],
    ['net::ERR_CERT_DATE_INVALID', {}, /^TLS failure: the certificate of shop\.example:8443 has expired/],
    ['net::ERR_SSL_PROTOCOL_ERROR', {}, /^TLS failure:/],
    ['net::ERR_CONNECTION_TIMED_OUT', {}, /^Timed out: shop\.example:8443 did not answer/],
    ['net::ERR_TUNNEL_CONNECTION_FAILED', { proxyReason: 'ETIMEDOUT' }, /^Timed out:/],
    ['net::ERR_TOO_MANY_REDIRECTS', {}, /^Too many redirects: https:\/\/shop\.example:8443\/cart kept redirecting/],
    ['net::ERR_EMPTY_RESPONSE', {}, /^Connection reset:/],
    [
      'net::ERR_HTTP_RESPONSE_CODE_FAILURE',
      { status: 500 },
      /^The page answered HTTP 500 with an empty body, so there is nothing to render;/,
    ],
  ])('%s %j', (code, context, words) => {
    expect(networkFailureMessage(url, code, context)).toMatch(words);
  });

  it('an unknown code keeps the raw words; the raw codes are always in details', () => {
    const err = loadFailed(url, 'net::ERR_BLOCKED_BY_CLIENT');
    expect(err.message).toBe('Could not load https://shop.example:8443/cart: net::ERR_BLOCKED_BY_CLIENT.');
    const refused = loadFailed(url, 'net::ERR_TUNNEL_CONNECTION_FAILED', { proxyReason: 'ECONNREFUSED' });
    expect(refused.code).toBe('render_failed');
    expect(refused.extra.details).toEqual([
      { path: 'url', message: 'net::ERR_TUNNEL_CONNECTION_FAILED (egress proxy: ECONNREFUSED)' },
    ]);
    // A job's or capture's record has no details: the raw codes end its message.
    expect(storedMessage(refused)).toMatch(
      /and that the site is running \(net::ERR_TUNNEL_CONNECTION_FAILED \(egress proxy: ECONNREFUSED\)\)\.$/,
    );
  });
});
