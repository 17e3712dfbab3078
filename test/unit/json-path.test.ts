// selectJson (src/filters/json-path.ts): diff.filters' jsonPath filters over a parsed JSON document, as
// the content reader passes it (JSON.parse's output): every match, several filters as a union in
// document order, a filter that selects nothing reported, filter expressions on the safe evaluator.
import { describe, expect, it } from 'vitest';
import { JsonPathFailed, selectJson } from '../../src/filters/json-path.js';
import { jsonPathProblem, xpathProblem } from '../../src/filters/expression-check.js';

const doc = JSON.parse(
  JSON.stringify({
    shop: 'Kettles',
    updated: '2026-11-28T10:00:00Z',
    items: [
      { name: 'Blue', price: 24.99, stock: 3 },
      { name: 'Red', price: 9.5, stock: 0 },
      { name: 'Green', price: 12, stock: 7 },
    ],
  }),
) as unknown;

describe('selectJson', () => {
  it('without a jsonPath filter, the document whole', () => {
    expect(selectJson(doc, [{ sort: true }])).toEqual({ value: doc, missing: [] });
  });

  it('every match of one path, in order', () => {
    expect(selectJson(doc, [{ jsonPath: '$.items[*].price' }])).toEqual({ value: [24.99, 9.5, 12], missing: [] });
  });

  it('several paths: the union in document order, each value once', () => {
    const out = selectJson(doc, [
      { jsonPath: '$.items[*].name' },
      { jsonPath: '$.shop' },
      { jsonPath: '$.items[0].name' },
    ]);
    expect(out).toEqual({ value: ['Kettles', 'Blue', 'Red', 'Green'], missing: [] });
  });

  it('a filter expression runs on the safe evaluator', () => {
    expect(selectJson(doc, [{ jsonPath: '$.items[?(@.price < 10)].name' }]).value).toEqual(['Red']);
    expect(selectJson(doc, [{ jsonPath: '$.items[?(@.stock > 0 && @.price > 10)].name' }]).value).toEqual([
      'Blue',
      'Green',
    ]);
  });

  it('reports a path that selects nothing by its index', () => {
    expect(selectJson(doc, [{ css: 'p' }, { jsonPath: '$.items[*].price' }, { jsonPath: '$.offers' }])).toEqual({
      value: [24.99, 9.5, 12],
      missing: [2],
    });
  });

  it('no JavaScript: an expression reaching for a constructor fails, naming the filter', () => {
    expect(() => selectJson(doc, [{ jsonPath: '$.items[?(@.constructor.constructor("return 1")())]' }])).toThrow(
      JsonPathFailed,
    );
    expect(() => selectJson(doc, [{ jsonPath: '$.items[?(@.constructor)]' }])).toThrow(/diff\.filters\[0\] \(jsonPath/);
  });

  it('a scalar or null document', () => {
    expect(selectJson(5, [{ jsonPath: '$' }])).toEqual({ value: [5], missing: [] });
    expect(selectJson(null, [{ jsonPath: '$.a' }])).toEqual({ value: [], missing: [0] });
  });
});

describe('expression checks', () => {
  it.each(['$.items[*].price', '$..name', "$['odd key']", '$.items[?(@.price < 10)].name', '$.items[-1:]'])(
    'accepts %s',
    (path) => expect(jsonPathProblem(path)).toBeNull(),
  );
  it.each(['items', '$.items[*', '$.items[?(@.price <<)]', '$.items]'])('refuses %s', (path) =>
    expect(jsonPathProblem(path)).not.toBeNull(),
  );
  it('XPath 1.0', () => {
    for (const ok of ['//li[@class="price"]', '//a/@href', '//p/text()', 'id("x")//span'])
      expect(xpathProblem(ok), ok).toBeNull();
    for (const bad of ['//li[', '///', '//p[@]']) expect(xpathProblem(bad), bad).toMatch(/XPath 1\.0/);
  });
});
