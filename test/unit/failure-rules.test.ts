// The failure rules' matching: Gotenberg's X99 status ranges, and ignored domains covering their subdomains.
import { describe, expect, it } from 'vitest';
import { failureRules, mainDocumentFails, onDomains, statusMatches } from '../../src/render/load/failure-rules.js';

describe('statusMatches', () => {
  it('an X99 entry covers X00 to X99 and nothing either side', () => {
    expect([399, 400, 450, 499, 500].map((s) => statusMatches([499], s))).toEqual([false, true, true, true, false]);
    expect([499, 500, 599].map((s) => statusMatches([599], s))).toEqual([false, true, true]);
  });

  it('any other entry is exact; an empty list matches nothing', () => {
    expect([403, 404, 405].map((s) => statusMatches([404], s))).toEqual([false, true, false]);
    expect(statusMatches([], 500)).toBe(false);
  });
});

describe('onDomains', () => {
  const domains = ['example.com'];
  it('matches the domain and its subdomains, not look-alikes', () => {
    expect(onDomains('https://example.com/a.png', domains)).toBe(true);
    expect(onDomains('https://cdn.example.com/a.png', domains)).toBe(true);
    expect(onDomains('https://a.b.example.com:8443/a.png', domains)).toBe(true);
    expect(onDomains('https://notexample.com/a.png', domains)).toBe(false);
    expect(onDomains('https://example.com.evil.net/a.png', domains)).toBe(false);
  });

  it('"*." and "." prefixes and capitals name the same domain (failureRules normalizes them)', () => {
    for (const given of ['*.Example.com', '.example.COM', 'EXAMPLE.com']) {
      const rules = failureRules({
        failOnResourceHttpStatusCodes: [404],
        ignoreResourceHttpStatusDomains: [given],
      } as never);
      expect(rules.resourceStatus!(404, 'https://img.example.com/x.png'), given).toBe(false);
      expect(rules.resourceStatus!(404, 'https://example.org/x.png'), given).toBe(true);
    }
  });
});

describe('mainDocumentFails', () => {
  it('failOnHttpError as before when no list is given; the list decides when given', () => {
    expect(mainDocumentFails({} as never, 404)).toBe(true);
    expect(mainDocumentFails({} as never, 399)).toBe(false);
    expect(mainDocumentFails({ failOnHttpError: false } as never, 500)).toBe(false);
    expect(mainDocumentFails({ failOnHttpStatusCodes: [599] } as never, 404)).toBe(false);
    expect(mainDocumentFails({ failOnHttpStatusCodes: [599] } as never, 503)).toBe(true);
  });
});
