// Behind trustProxy hops, the client is the address that many entries from the RIGHT of
// X-Forwarded-For (each trusted proxy appends what it saw; anything further left the client wrote).
// Observed through a tiny anonymous rate limit: requests that share a bucket run out of it together.
// The requests are cheap refusals ({} is a 400): the bucket is taken before the body is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

const PER_MINUTE = 2;

async function postFrom(service: TestService, forwardedFor: string | undefined): Promise<Response> {
  return service.post('/api/pdf', {}, forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor });
}

/** PER_MINUTE requests pass the rate limit (400 from the empty body), the next is 429. */
async function expectLimitedAfterBudget(service: TestService, forwardedFor: (i: number) => string): Promise<void> {
  for (let i = 0; i < PER_MINUTE; i++)
    expect((await postFrom(service, forwardedFor(i))).status, `request ${i}`).toBe(400);
  const limited = await postFrom(service, forwardedFor(PER_MINUTE));
  expect(limited.status).toBe(429);
  expect((await errorOf(limited)).code).toBe('rate_limited');
}

/** Each request was counted apart: none is rate-limited. */
async function expectNeverLimited(service: TestService, forwardedFor: (i: number) => string): Promise<void> {
  for (let i = 0; i < PER_MINUTE * 3; i++)
    expect((await postFrom(service, forwardedFor(i))).status, `request ${i}`).toBe(400);
}

describe('X-Forwarded-For with trustProxy: 1', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ trustProxy: 1, rateLimit: { anonymousPerMinute: PER_MINUTE } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('a client rotating the leftmost value is still limited: the proxy-written rightmost one counts', async () => {
    await expectLimitedAfterBudget(service, (i) => `198.51.100.${i + 1}, 203.0.113.10`);
  });

  it('different rightmost values are different clients', async () => {
    await expectNeverLimited(service, (i) => `203.0.113.${100 + i}`);
  });

  it('true still means one hop (the old form of the setting)', async () => {
    const legacy = await startTestService({ trustProxy: true, rateLimit: { anonymousPerMinute: PER_MINUTE } });
    try {
      await expectLimitedAfterBudget(legacy, (i) => `198.51.100.${i + 1}, 203.0.113.11`);
    } finally {
      await legacy.close();
    }
  });

  it('IPv6 addresses share a bucket per /64; the next /64 has its own', async () => {
    await expectLimitedAfterBudget(service, (i) => `2001:db8:aa:1::${i + 1}`);
    expect((await postFrom(service, '2001:db8:aa:2::1')).status).toBe(400);
  });

  it('an IPv4-mapped IPv6 address counts as the IPv4 address', async () => {
    await expectLimitedAfterBudget(service, (i) => (i % 2 === 0 ? '::ffff:203.0.113.20' : '203.0.113.20'));
  });
});

describe('X-Forwarded-For with trustProxy: 2', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ trustProxy: 2, rateLimit: { anonymousPerMinute: PER_MINUTE } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('the second value from the right counts: rotating the leftmost (or the last hop) does not escape', async () => {
    await expectLimitedAfterBudget(service, (i) => `198.51.100.${i + 1}, 203.0.113.30, 10.0.0.${i + 1}`);
  });

  it('different second-from-right values are different clients', async () => {
    await expectNeverLimited(service, (i) => `198.51.100.1, 203.0.113.${40 + i}, 10.0.0.1`);
  });
});

describe('X-Forwarded-For with trustProxy: 0', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ trustProxy: 0, rateLimit: { anonymousPerMinute: PER_MINUTE } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('the header is ignored: every request counts against the socket address', async () => {
    await expectLimitedAfterBudget(service, (i) => `203.0.113.${50 + i}`);
  });
});
