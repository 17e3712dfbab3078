import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/http/json-depth.js';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('nestsDeeperThan', () => {
  it('accepts the limit and refuses one level more, objects and arrays alike', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":{}}}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":{"b":{"c":[]}}}', 3)).toBe(true);
  });

  it('counts depth, not the number of containers: siblings do not add up', () => {
    expect(nestsDeeperThan(JSON.stringify(Array.from({ length: 1000 }, () => [[1]])), 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ s: '[[[[{{{{' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ s: 'a"[[[[\\' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ s: 'a\\' }) + '[[', 1)).toBe(true);
  });

  it('scans 100,000 levels without recursion', () => {
    expect(nestsDeeperThan(nested(100_000), MAX_JSON_DEPTH)).toBe(true);
  });
});
