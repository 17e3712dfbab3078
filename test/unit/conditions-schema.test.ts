import { describe, expect, it } from 'vitest';
import { notifyWhenSchema, ruleSchema } from '../../src/http/schemas/conditions.js';

const paths = (input: unknown) => {
  const result = ruleSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
};

describe('notifyWhen rule schema: limits at and just over their edge', () => {
  it('selector: 1 to 1000 characters', () => {
    expect(paths({ selector: 'a'.repeat(1000), appears: true })).toEqual([]);
    expect(paths({ selector: 'a'.repeat(1001), appears: true })).toEqual(['selector']);
    expect(paths({ selector: 'a', appears: true })).toEqual([]);
    expect(paths({ selector: '', appears: true })).toEqual(['selector']);
  });

  it('textContains / textNotContains: up to 1000 characters, not blank', () => {
    for (const test of ['textContains', 'textNotContains']) {
      expect(paths({ selector: 'p', [test]: 'x'.repeat(1000) })).toEqual([]);
      expect(paths({ selector: 'p', [test]: 'x'.repeat(1001) })).toEqual([test]);
      expect(paths({ selector: 'p', [test]: ' \t' })).toEqual([test]);
      expect(paths({ selector: 'p', [test]: '' })).toEqual([test]);
    }
  });

  it('numbers are finite numbers; the flags take only true', () => {
    expect(paths({ selector: 'p', numberBelow: -0.5 })).toEqual([]);
    expect(paths({ selector: 'p', numberAbove: Number.POSITIVE_INFINITY })).toEqual(['numberAbove']);
    expect(paths({ selector: 'p', numberChanged: false })).toEqual(['numberChanged']);
    expect(paths({ selector: 'p', disappears: 'yes' })).toEqual(['disappears']);
  });

  it('exactly one test: each extra one is named', () => {
    expect(paths({ selector: 'p' })).toEqual(['']);
    // The first in the schema's order (textContains, ..., appears, disappears) is kept; the others are named.
    expect(paths({ selector: 'p', appears: true, disappears: true, textContains: 'x' })).toEqual([
      'appears',
      'disappears',
    ]);
  });

  it('at most 20 rules; none by default', () => {
    const rules = (n: number) => Array.from({ length: n }, (_, i) => ({ selector: `.r${i}`, appears: true }));
    expect(notifyWhenSchema.safeParse(rules(20)).success).toBe(true);
    expect(notifyWhenSchema.safeParse(rules(21)).success).toBe(false);
    expect(notifyWhenSchema.parse(undefined)).toEqual([]);
  });
});
