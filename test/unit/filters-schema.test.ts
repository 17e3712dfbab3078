// diff.filters and diff.ignoreText in the monitor body schema: a broken XPath, JSONPath or regex is
// refused naming the filter's field, the list's edge (20 kept, 21 refused), ignoreText's object form.
import { describe, expect, it } from 'vitest';
import { monitorSchema } from '../../src/http/schemas/monitors.js';
import { MAX_FILTERS } from '../../src/domain/filters.js';
import { refusalDetails } from '../helpers/refusal.js';

const schema = monitorSchema({
  maxFullPageHeight: 16_384,
  maxImagePixels: 50_000_000,
  maxTimeoutMs: 120_000,
  maxRetention: 1000,
  minIntervalSeconds: 1,
});
const BASE = { url: 'https://example.com/', schedule: '0 0 1 1 *' };
const withDiff = (diff: unknown) => ({ ...BASE, diff });

function refused(body: unknown): { path: string; message: string }[] {
  expect(schema.safeParse(body).success, `expected ${JSON.stringify(body)} to be refused`).toBe(false);
  return refusalDetails(schema, body);
}

function accepted(body: unknown) {
  const result = schema.safeParse(body);
  expect(result.success, result.success ? '' : JSON.stringify(result.error.issues)).toBe(true);
  return result.data!;
}

describe('diff.filters', () => {
  it('takes every kind of filter, in order', () => {
    const filters = [
      { css: '.price' },
      { xpath: '//li[@class="item"]/text()' },
      { jsonPath: '$.items[?(@.price < 10)].name' },
      { remove: '.ad' },
      { extract: '\\d+', flags: 'i' },
      { unique: true },
      { sort: true },
      { dropBlank: true },
      { ignoreCase: true },
      { ignoreWhitespace: true },
    ];
    expect(accepted(withDiff({ filters })).diff.filters).toEqual(filters);
  });

  it.each([
    [{ xpath: '//div[' }, 'diff.filters.0.xpath', /XPath/],
    [{ xpath: '///' }, 'diff.filters.0.xpath', /XPath/],
    [{ jsonPath: '$.items[*' }, 'diff.filters.0.jsonPath', /JSONPath/],
    [{ jsonPath: 'items.price' }, 'diff.filters.0.jsonPath', /starts with "\$"/],
    [{ jsonPath: '$.items[?(@.price <<)]' }, 'diff.filters.0.jsonPath', /filter expression/],
    [{ extract: '(a' }, 'diff.filters.0.extract', /not a valid regular expression/],
    [{ extract: '(?=a)b' }, 'diff.filters.0.extract', /lookahead/],
    [{ extract: 'a', flags: 'x' }, 'diff.filters.0.flags', /flags/],
  ])('refuses %j at %s', (filter, path, message) => {
    const details = refused(withDiff({ filters: [filter] }));
    expect(details.map((d) => d.path)).toContain(path);
    expect(details.find((d) => d.path === path)!.message).toMatch(message);
  });

  it('names the filter that is wrong in a longer list', () => {
    const details = refused(withDiff({ filters: [{ css: 'p' }, { sort: true }, { xpath: '//p[' }] }));
    expect(details.map((d) => d.path)).toEqual(['diff.filters.2.xpath']);
  });

  it('refuses an object with two kinds, or none', () => {
    expect(refused(withDiff({ filters: [{ css: 'p', xpath: '//p' }] }))[0]!.path).toMatch(/^diff\.filters\.0/);
    expect(refused(withDiff({ filters: [{}] }))[0]!.path).toMatch(/^diff\.filters\.0/);
  });

  it(`keeps ${MAX_FILTERS} filters and refuses ${MAX_FILTERS + 1}`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => ({ css: `.c${i}` }));
    expect(accepted(withDiff({ filters: list(MAX_FILTERS) })).diff.filters).toHaveLength(MAX_FILTERS);
    expect(refused(withDiff({ filters: list(MAX_FILTERS + 1) })).map((d) => d.path)).toEqual(['diff.filters']);
  });
});

describe('diff.ignoreText', () => {
  it('takes plain strings and {pattern, flags}', () => {
    const ignoreText = ['\\d+', { pattern: 'Updated', flags: '' }, { pattern: '^x', flags: 'ims' }];
    expect(accepted(withDiff({ ignoreText })).diff.ignoreText).toEqual(ignoreText);
  });

  it('refuses bad flags and bad patterns at their field', () => {
    expect(refused(withDiff({ ignoreText: [{ pattern: 'a', flags: 'g' }] })).map((d) => d.path)).toEqual([
      'diff.ignoreText.0.flags',
    ]);
    expect(refused(withDiff({ ignoreText: [{ pattern: '(a', flags: '' }] })).map((d) => d.path)).toEqual([
      'diff.ignoreText.0.pattern',
    ]);
    expect(refused(withDiff({ ignoreText: ['(a'] })).map((d) => d.path)).toEqual(['diff.ignoreText.0']);
  });
});
