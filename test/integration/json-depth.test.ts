// JSON nested deeper than 64 levels is refused with 400 on every endpoint that reads JSON, before
// anything walks it: a 100,000-deep JSON Merge Patch to a monitor is a 400, not a stack overflow (500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

/** `{"a":{"a":...{}}}`, `depth` objects deep. */
const deepObject = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
const DEPTH_MESSAGE = /nests deeper than 64 levels/;

describe('JSON nesting depth', () => {
  let service: TestService;
  let key: string;
  let monitorId: string;

  beforeAll(async () => {
    service = await startTestService();
    key = service.createKey().key;
    const res = await service.call('POST', '/api/monitors', key, {
      url: 'http://127.0.0.1:9/',
      schedule: '0 0 1 1 *',
      paused: true,
    });
    expect(res.status).toBe(201);
    monitorId = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await service?.close();
  });

  const send = (method: string, path: string, body: string, auth = true) =>
    fetch(`${service.url}${path}`, {
      method,
      body,
      headers: { 'content-type': 'application/json', ...(auth && { authorization: `Bearer ${key}` }) },
    });

  it('64 levels pass the depth check (the schema then judges the fields); 65 are a 400', async () => {
    // 64 levels in all: the body object and 63 below it, under an unknown field the schema refuses.
    const at = await send('POST', '/api/pdf', `{"html":"x","extra":${deepObject(63)}}`, false);
    expect(at.status).toBe(400);
    const atError = await errorOf(at);
    expect(atError.message).not.toMatch(DEPTH_MESSAGE);
    expect(atError.details?.length).toBeGreaterThan(0); // the schema ran: the unknown field is named

    const over = await send('POST', '/api/pdf', `{"html":"x","extra":${deepObject(64)}}`, false);
    expect(over.status).toBe(400);
    expect(await errorOf(over)).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(DEPTH_MESSAGE) as unknown,
    });
  });

  it('a monitor PATCH (JSON Merge Patch) 100,000 levels deep is a 400, and the monitor is unchanged', async () => {
    const res = await send('PATCH', `/api/monitors/${monitorId}`, `{"capture":${deepObject(100_000)}}`);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(DEPTH_MESSAGE) as unknown,
    });
    const after = await service.call('GET', `/api/monitors/${monitorId}`, key);
    expect(after.status).toBe(200);
  });

  it('a 65-deep body is refused on the keyed JSON routes too (jobs, monitors)', async () => {
    for (const [method, path] of [
      ['POST', '/api/monitors'],
      ['POST', '/api/image'],
      ['PATCH', `/api/monitors/${monitorId}`],
    ] as const) {
      const res = await send(method, path, `{"name":${deepObject(65)}}`);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect((await errorOf(res)).message, `${method} ${path}`).toMatch(DEPTH_MESSAGE);
    }
  });
});
