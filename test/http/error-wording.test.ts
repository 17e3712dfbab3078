// The API's refusals over the real HTTP stack (fake renderer): one plain sentence each, limits in human
// units, the way out named (an API key raises the body limit to 8 MiB), the rate limit said once. The
// codes, statuses and headers are the contract's and do not change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApp, type FakeApp } from '../helpers/fake-app.js';
import { expectError, jsonOfSize } from '../helpers/http-contract.js';

let app: FakeApp;
let limited: FakeApp; // 2 anonymous requests a minute

beforeAll(async () => {
  [app, limited] = await Promise.all([startFakeApp(), startFakeApp({ rateLimit: { anonymousPerMinute: 2 } })]);
});
afterAll(async () => {
  await Promise.all([app?.close(), limited?.close()]);
});

describe('error messages in words', () => {
  it('413 without a key: the limit in MiB and that a key raises it to 8 MiB; with a key, just the limit', async () => {
    const body = jsonOfSize(1024 * 1024 + 1);
    const anonymous = await expectError(await app.post('/api/pdf', body), 413, 'payload_too_large');
    expect(anonymous.message).toBe(
      'The request body is larger than the limit of 1 MiB; send less, or use an API key, which raises the limit to 8 MiB.',
    );
    const keyed = await expectError(
      await app.post('/api/pdf', jsonOfSize(8 * 1024 * 1024 + 1), { authorization: `Bearer ${app.key}` }),
      413,
      'payload_too_large',
    );
    expect(keyed.message).toMatch(/^The request body is larger than the limit of 8 MiB; send less/);
    expect(`${anonymous.message} ${keyed.message}`).not.toMatch(/\d{5,} bytes/);
  });

  it('429: the limit and the wait said once, no header named; Retry-After still set', async () => {
    const send = () => limited.post('/api/pdf', { html: '<p>x</p>' });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const res = await send();
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    const error = await expectError(res, 429, 'rate_limited');
    expect(error.message).toBe(
      `You have reached the limit of 2 requests a minute without an API key: wait ${retryAfter} s and try again, ` +
        'or use an API key, which has a higher limit.',
    );
    expect(error.message).not.toMatch(/Retry-After|rate limit exceeded/i);
  });

  it('400: the known bad messages are sentences naming the field, the limit and what to do', async () => {
    const res = await app.post('/api/image', { url: 'example.com', viewport: { width: 5000, height: 800 } });
    const error = await expectError(res, 400, 'invalid_request');
    expect(error.message).toBe(
      'The request has 2 invalid fields (url and viewport.width); details has a sentence for each.',
    );
    expect(error.details).toEqual([
      {
        path: 'url',
        message: 'url must be a full web address starting with http:// or https://, such as https://example.com/',
      },
      { path: 'viewport.width', message: 'viewport.width can be at most 3,840 px: give a smaller number.' },
    ]);
  });

  it('415 and a body that is not JSON say what to send', async () => {
    const wrongType = await fetch(`${app.url}/api/pdf`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect((await expectError(wrongType, 415, 'unsupported_media_type')).message).toBe(
      'The Content-Type header must be application/json, text/html or multipart/form-data, not text/plain; set it to match the body.',
    );
    const broken = await app.post('/api/pdf', '{"html": ');
    expect((await expectError(broken, 400, 'invalid_request')).message).toBe(
      'The body is not valid JSON; check its quotes, commas and brackets.',
    );
  });
});
