// The notifyWhen schema's new forms (issue 27): price rules, regex rules with flags, while, groups; their
// limits at and just over the edge, and each bad input named by its field path.
import { describe, expect, it } from 'vitest';
import { MAX_GROUP_DEPTH, MAX_RULES } from '../../src/domain/notify-rules.js';
import { notifyWhenSchema } from '../../src/http/schemas/conditions.js';

const issues = (input: unknown) => {
  const result = notifyWhenSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};
const paths = (input: unknown) => issues(input).map((i) => i.slice(0, i.indexOf(':')));

/** A rule wrapped in `depth` groups, alternating all and any. */
function nested(depth: number, rule: unknown = { priceBelow: 5 }): unknown {
  let entry = rule;
  for (let d = depth; d > 0; d--) entry = { [d % 2 ? 'all' : 'any']: [entry] };
  return entry;
}

describe('notifyWhen groups: depth and count', () => {
  it(`groups nest ${MAX_GROUP_DEPTH} deep, not ${MAX_GROUP_DEPTH + 1}`, () => {
    expect(MAX_GROUP_DEPTH).toBe(3);
    expect(issues([nested(3)])).toEqual([]);
    expect(issues([nested(4)])).toEqual([
      '0.all.0.any.0.all.0.any: groups nest at most 3 deep: put these rules in the group around it',
    ]);
  });

  it(`${MAX_RULES} rules in all through groups, not ${MAX_RULES + 1}`, () => {
    const rules = (n: number) => Array.from({ length: n }, (_, i) => ({ priceBelow: i + 1 }));
    expect(issues([{ any: rules(10) }, { all: [{ any: rules(10) }] }])).toEqual([]);
    expect(issues([{ any: rules(10) }, { all: [{ any: rules(10) }] }, { outOfStock: true }])).toEqual([
      ': notifyWhen can hold at most 20 rules in all, counting those inside groups (it has 21): remove some.',
    ]);
    expect(paths([{ any: rules(21) }])).toEqual(['0.any']);
  });

  it('a group holds one list, not empty, and nothing else', () => {
    expect(paths([{ any: [] }])).toEqual(['0.any']);
    expect(paths([{ all: [{ priceBelow: 1 }], any: [{ priceBelow: 1 }] }])).toEqual(['0.any']);
    expect(issues([{ all: [{ priceBelow: 1 }], while: true }])).toEqual([
      '0.while: a group takes only all: put while in a rule inside it',
    ]);
  });
});

describe('notifyWhen rules: new tests', () => {
  it('price rules take no selector; selector rules need one', () => {
    expect(issues([{ selector: '.p', priceBelow: 10 }])).toEqual([
      "0.selector: priceBelow reads the capture's price and stock, not an element: remove the selector",
    ]);
    expect(issues([{ any: [{ textMatches: 'x' }] }])).toEqual([
      '0.any.0.selector: textMatches reads an element: give its selector',
    ]);
  });

  it('textMatches: a pattern RE2 compiles; flags ⊆ "ims", only with the regex tests', () => {
    expect(issues([{ selector: 'p', textMatches: 'in\\s+stock', flags: 'ims' }])).toEqual([]);
    expect(issues([{ selector: 'p', textNotMatches: 'x', flags: '' }])).toEqual([]);
    expect(paths([{ selector: 'p', textMatches: '(?=x)y' }])).toEqual(['0.textMatches']);
    expect(paths([{ selector: 'p', textMatches: 'a(' }])).toEqual(['0.textMatches']);
    expect(paths([{ selector: 'p', textMatches: 'x', flags: 'g' }])).toEqual(['0.flags']);
    expect(paths([{ selector: 'p', textMatches: 'x', flags: 'ii' }])).toEqual(['0.flags']);
    expect(issues([{ selector: 'p', textContains: 'x', flags: 'i' }])).toEqual([
      '0.flags: flags go with textMatches or textNotMatches only: remove them',
    ]);
    expect(paths([{ all: [{ any: [{ selector: 'p', textMatches: '(a)\\1' }] }] }])).toEqual([
      '0.all.0.any.0.textMatches',
    ]);
  });

  it('priceOutside: min below max', () => {
    expect(issues([{ priceOutside: [10, 20] }])).toEqual([]);
    expect(issues([{ priceOutside: [20, 20] }])).toEqual([
      '0.priceOutside: priceOutside is [min, max] with min below max; 20 is not below 20',
    ]);
    expect(paths([{ priceOutside: [20] }])).toEqual(['0.priceOutside']);
  });

  it('priceDropsBy / priceRisesBy: exactly one of percent and amount, above 0', () => {
    expect(issues([{ priceDropsBy: { percent: 10 } }, { priceRisesBy: { amount: 0.01 } }])).toEqual([]);
    expect(paths([{ priceDropsBy: { percent: 0 } }])).toEqual(['0.priceDropsBy.percent']);
    expect(paths([{ priceDropsBy: { percent: 10, amount: 1 } }])).toEqual(['0.priceDropsBy']);
    expect(paths([{ priceRisesBy: {} }])).toEqual(['0.priceRisesBy']);
    // An unknown key (named by the HTTP layer as priceRisesBy.ratio), and no percent or amount.
    expect(issues([{ priceRisesBy: { ratio: 2 } }])).toEqual([
      '0.priceRisesBy: Unrecognized key: "ratio"',
      '0.priceRisesBy: give either percent or amount (one of them)',
    ]);
  });

  it('while takes only true; backInStock and outOfStock only true', () => {
    expect(issues([{ backInStock: true, while: true }])).toEqual([]);
    expect(paths([{ outOfStock: true, while: false }])).toEqual(['0.while']);
    expect(paths([{ backInStock: false }])).toEqual(['0.backInStock']);
  });

  it('old rules parse unchanged', () => {
    const old = [
      { selector: '.price', numberBelow: 20 },
      { selector: '.stock', textContains: 'in stock' },
    ];
    expect(notifyWhenSchema.parse(old)).toEqual(old);
  });
});
