// notifyWhen beyond single rules (issue 27): groups ({all}, {any}), `while` rules, the price rules with
// their repeat rule, and textMatches. Each capture's record is fed to the next as its previous capture,
// as the capture job does with the baseline.
import { describe, expect, it } from 'vitest';
import type { ConditionResult } from '../../src/domain/capture-findings.js';
import type { RuleEntry } from '../../src/domain/notify-rules.js';
import type { Probe } from '../../src/domain/page-facts.js';
import type { Availability, ProductFacts } from '../../src/domain/product.js';
import { evaluateConditions, type PreviousCapture } from '../../src/monitors/conditions.js';

const found = (selector: string, text: string): Probe => ({ selector, found: true, text, lang: 'en-US' });
const product = (
  price: number | null,
  availability: Availability | null = 'InStock',
  currency = 'USD',
): ProductFacts => ({
  price,
  currency,
  availability,
  source: 'json-ld',
});

interface Capture {
  probes?: Probe[];
  product?: ProductFacts | null;
  changed?: boolean;
}

/** Each capture evaluated with the previous one's record, every capture a change unless said. */
function run(rules: RuleEntry[], ...captures: Capture[]) {
  let previous: PreviousCapture | undefined;
  return captures.map(({ probes = [], product = null, changed = true }) => {
    const outcome = evaluateConditions(rules, probes, previous, product);
    previous = { conditions: outcome.results, conditionsMet: outcome.met, changed, product };
    return outcome;
  });
}
const mets = (outcomes: { met: boolean | null }[]) => outcomes.map((o) => o.met);
const prices = (...list: (number | null)[]) => list.map((p) => ({ product: product(p) }));

describe('price rules', () => {
  it('priceBelow fires when the price becomes below, again at each further drop, not on a rise or the same price', () => {
    const outcomes = run([{ priceBelow: 100 }], ...prices(120, 95, 90, 90, 93, 80, 110, 99));
    expect(mets(outcomes)).toEqual([false, true, true, false, false, true, false, true]);
    expect(outcomes[1]!.results).toEqual([
      { index: 0, path: '0', selector: null, test: 'priceBelow', met: true, value: 95 },
    ]);
  });

  it('priceAbove is the mirror: becomes above, then each further rise', () => {
    const outcomes = run([{ priceAbove: 100 }], ...prices(90, 105, 110, 107, 107, 120));
    expect(mets(outcomes)).toEqual([false, true, true, false, false, true]);
  });

  it('priceOutside [min, max]: true below min or above max; told when it leaves the range', () => {
    const outcomes = run([{ priceOutside: [50, 100] }], ...prices(70, 40, 30, 70, 101, 100));
    expect(outcomes.map((o) => o.results[0]!.met)).toEqual([false, true, true, false, true, false]);
    expect(mets(outcomes)).toEqual([false, true, false, false, true, false]);
  });

  it('priceDropsBy percent and amount compare with the previous capture, and each drop is news', () => {
    const percent = run([{ priceDropsBy: { percent: 10 } }], ...prices(100, 90, 85, 76.5, 80));
    // 100 → 90 is exactly 10 %; 90 → 85 is 5.6 %; 85 → 76.5 is 10 % again; a rise is not a drop.
    expect(mets(percent)).toEqual([false, true, false, true, false]);
    const amount = run([{ priceDropsBy: { amount: 5 } }], ...prices(20, 15, 14, 9));
    expect(mets(amount)).toEqual([false, true, false, true]);
    const rise = run([{ priceRisesBy: { percent: 50 } }], ...prices(10, 15, 20, 30.01));
    expect(mets(rise)).toEqual([false, true, false, true]);
  });

  it('a drop across a change of currency is not compared, and says why', () => {
    const [, second] = run(
      [{ priceDropsBy: { percent: 10 } }],
      { product: product(100, 'InStock', 'USD') },
      { product: product(80, 'InStock', 'EUR') },
    );
    expect(second!.met).toBe(false);
    expect(second!.errors).toEqual([
      'notifyWhen[0] (priceDropsBy): the currency changed (USD → EUR); prices are not compared',
    ]);
  });

  it('backInStock fires once, when the previous capture was not in stock and this one is; outOfStock the reverse', () => {
    const stock = (...list: (Availability | null)[]) => list.map((a) => ({ product: product(10, a) }));
    const back = run(
      [{ backInStock: true }],
      ...stock('OutOfStock', 'InStock', 'InStock', 'SoldOut', 'LimitedAvailability'),
    );
    expect(mets(back)).toEqual([false, true, false, false, true]);
    expect(back.map((o) => o.results[0]!.met)).toEqual([false, true, false, false, true]); // true only on the move
    expect(back[1]!.results[0]!.value).toBe('InStock');
    const out = run(
      [{ outOfStock: true }],
      ...stock('InStock', 'PreOrder', 'OutOfStock', 'OnlineOnly', 'Discontinued'),
    );
    expect(mets(out)).toEqual([false, true, false, false, true]);
    // The first capture knows nothing of before: in stock is not "back".
    expect(mets(run([{ backInStock: true }], ...stock('InStock', 'InStock')))).toEqual([false, false]);
  });

  it('no product read: false with an error naming the rule by its test', () => {
    const [o] = run([{ priceBelow: 5 }, { outOfStock: true }], { product: null });
    expect(o!.results.map((r) => [r.met, r.value])).toEqual([
      [false, null],
      [false, null],
    ]);
    expect(o!.errors).toEqual([
      'notifyWhen[0] (priceBelow): no price was read on the page',
      'notifyWhen[1] (outOfStock): no availability was read on the page',
    ]);
  });
});

describe('textMatches / textNotMatches', () => {
  it('are case-insensitive by default; flags "" make them case-sensitive; "s" lets . cross a line', () => {
    const rules: RuleEntry[] = [
      { selector: '.s', textMatches: 'only \\d+ LEFT' },
      { selector: '.s', textMatches: 'only \\d+ LEFT', flags: '' },
      { selector: '.s', textNotMatches: 'sold\\s+out' },
      { selector: '.t', textMatches: 'a.b', flags: 's' },
      { selector: '.t', textMatches: 'a.b', flags: '' },
    ];
    const [o] = run(rules, { probes: [found('.s', 'Only 3 left'), found('.t', 'a\nb')] });
    expect(o!.results.map((r) => r.met)).toEqual([true, false, true, true, false]);
    expect(o!.errors).toEqual([]);
  });

  it('were true before when the previous text matches: not news again', () => {
    const outcomes = run(
      [{ selector: '.s', textMatches: 'in stock' }],
      { probes: [found('.s', 'Sold out')] },
      { probes: [found('.s', 'In stock')] },
      { probes: [found('.s', 'In stock, 3 left')] },
    );
    expect(mets(outcomes)).toEqual([false, true, false]);
  });
});

describe('while', () => {
  it('a while rule must hold but its becoming true is not news; the other rule must become true', () => {
    const rules: RuleEntry[] = [{ selector: '.stock', textContains: 'in stock', while: true }, { priceBelow: 100 }];
    const cap = (stock: string, price: number) => ({ probes: [found('.stock', stock)], product: product(price) });
    const outcomes = run(
      rules,
      cap('Sold out', 90), // price below, stock rule false
      cap('In stock', 90), // only the while rule became true: not told
      cap('In stock', 120),
      cap('In stock', 95), // the price rule became true while the other holds: told
      cap('Sold out', 80),
    );
    expect(mets(outcomes)).toEqual([false, false, false, true, false]);
    expect(outcomes[3]!.results[0]).toMatchObject({ while: true, met: true });
    expect(outcomes[3]!.results[1]).not.toHaveProperty('while');
  });

  it('when every rule is a while rule, the change is told whenever they hold', () => {
    const outcomes = run([{ priceBelow: 100, while: true }], ...prices(120, 90, 90, 110, 80));
    expect(mets(outcomes)).toEqual([false, true, true, false, true]);
  });
});

describe('groups', () => {
  it('any: true when one entry holds; told when the group comes to hold, not when a second entry joins', () => {
    const rules: RuleEntry[] = [
      {
        any: [
          { selector: '.a', appears: true },
          { selector: '.b', appears: true },
        ],
      },
    ];
    const page = (...present: string[]) => ({
      probes: ['.a', '.b'].map((s) =>
        present.includes(s) ? found(s, 'x') : { selector: s, found: false, text: null, lang: null },
      ),
    });
    const outcomes = run(rules, page(), page('.a'), page('.a', '.b'), page('.b'), page(), page('.b'));
    expect(mets(outcomes)).toEqual([false, true, false, false, false, true]);
    expect(outcomes[1]!.results.map((r) => [r.index, r.path, r.met])).toEqual([
      [0, '0.any.0', true],
      [1, '0.any.1', false],
    ]);
  });

  it('all inside any inside the list: paths and indexes count leaves depth first', () => {
    const rules: RuleEntry[] = [
      { selector: 'h1', textContains: 'widget' },
      { any: [{ priceBelow: 10 }, { all: [{ backInStock: true }, { selector: '.s', textMatches: 'ships' }] }] },
    ];
    const [o] = run(rules, { probes: [found('h1', 'Widget'), found('.s', 'ships today')], product: product(20) });
    expect(o!.results.map((r) => [r.index, r.path, r.selector, r.test])).toEqual([
      [0, '0', 'h1', 'textContains'],
      [1, '1.any.0', null, 'priceBelow'],
      [2, '1.any.1.all.0', null, 'backInStock'],
      [3, '1.any.1.all.1', '.s', 'textMatches'],
    ]);
  });

  it('a price drop in an any group repeats like a lone rule; the group is news again at each further drop', () => {
    const rules: RuleEntry[] = [{ any: [{ priceBelow: 100 }, { outOfStock: true }] }];
    expect(mets(run(rules, ...prices(120, 95, 90, 90)))).toEqual([false, true, true, false]);
  });

  it('all group nested in the list: every entry must hold, news when one of them becomes true', () => {
    const rules: RuleEntry[] = [{ all: [{ priceBelow: 100 }, { selector: '.s', textContains: 'in stock' }] }];
    const cap = (stock: string, price: number) => ({ probes: [found('.s', stock)], product: product(price) });
    expect(
      mets(run(rules, cap('sold out', 90), cap('in stock', 90), cap('in stock', 150), cap('in stock', 99))),
    ).toEqual([false, true, false, true]);
  });

  it('old records (no path) still match top-level rules by index', () => {
    const old: ConditionResult[] = [{ index: 0, selector: '.price', test: 'numberBelow', met: true, value: 15 }];
    const previous: PreviousCapture = { conditions: old, conditionsMet: true, changed: true };
    const rules: RuleEntry[] = [{ selector: '.price', numberBelow: 20 }];
    expect(evaluateConditions(rules, [found('.price', '$14')], previous).met).toBe(false); // was already below 20
  });
});
