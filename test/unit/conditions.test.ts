import { describe, expect, it } from 'vitest';
import type { ConditionResult } from '../../src/domain/capture-findings.js';
import type { Rule } from '../../src/domain/notify-rules.js';
import { evaluateConditions, type PreviousCapture } from '../../src/monitors/conditions.js';
import type { Probe } from '../../src/domain/page-facts.js';

const found = (selector: string, text: string, lang: string | null = null): Probe => ({
  selector,
  found: true,
  text,
  lang,
});
const missing = (selector: string): Probe => ({ selector, found: false, text: null, lang: null });

/** A capture the evaluation sees: its probes, and whether its pixels (or text) changed; changed unless said. */
type Capture = Probe[] | { probes: Probe[]; changed: boolean };

/** Evaluates the rules on a sequence of captures, feeding each one's record to the next as its previous capture. */
function run(rules: Rule[], ...captures: Capture[]) {
  let previous: PreviousCapture | undefined;
  return captures.map((capture) => {
    const { probes, changed } = Array.isArray(capture) ? { probes: capture, changed: true } : capture;
    const outcome = evaluateConditions(rules, probes, previous);
    previous = { conditions: outcome.results, conditionsMet: outcome.met, changed };
    return outcome;
  });
}

/** A previous capture that was a change (so whatever it met was told). */
const told = (conditions: ConditionResult[]): PreviousCapture => ({ conditions, conditionsMet: true, changed: true });

describe('evaluateConditions: met', () => {
  it('is null without rules, whatever the page holds', () => {
    expect(evaluateConditions([], [], undefined)).toEqual({ results: [], errors: [], met: null });
  });

  it('is true when a rule becomes true, then false while it stays true, and true again after it was false', () => {
    const rules: Rule[] = [{ selector: '.price', numberBelow: 20 }];
    const price = (text: string) => [found('.price', text, 'de-DE')];
    const outcomes = run(
      rules,
      price('24,99 €'),
      price('19,99 €'),
      price('18,99 €'),
      price('21,00 €'),
      price('15,00 €'),
    );
    expect(outcomes.map((o) => o.met)).toEqual([false, true, false, false, true]);
    expect(outcomes.map((o) => o.results[0]!.value)).toEqual([24.99, 19.99, 18.99, 21, 15]);
    expect(outcomes[1]!.results).toEqual([
      { index: 0, path: '0', selector: '.price', test: 'numberBelow', met: true, value: 19.99 },
    ]);
  });

  it('is true on the first capture when the rules already hold (nothing was true before)', () => {
    const [first] = run([{ selector: 'h1', textContains: 'sale' }], [found('h1', 'Big SALE today')]);
    expect(first!.met).toBe(true);
  });

  it('needs every rule true and one of them newly so', () => {
    const rules: Rule[] = [
      { selector: '.price', numberBelow: 20 },
      { selector: '.stock', textContains: 'in stock' },
    ];
    const page = (price: string, stock: string) => [found('.price', price, 'en-US'), found('.stock', stock, 'en-US')];
    const outcomes = run(
      rules,
      page('$19.99', 'Sold out'), // price below, not in stock: not all true
      page('$19.99', 'In stock'), // the stock rule became true: met
      page('$18.99', 'In stock'), // both stay true: not new
      page('$18.99', 'Sold out'),
      page('$25.00', 'In stock'), // the price rule fails
    );
    expect(outcomes.map((o) => o.met)).toEqual([false, true, false, false, false]);
    expect(outcomes[0]!.results.map((r) => r.met)).toEqual([true, false]);
  });

  it('stays news while nothing was told: rules met on a capture that was no change are met on the next one', () => {
    // The price dropped on a capture whose pixels did not change (say, below the captured viewport).
    const rules: Rule[] = [{ selector: '.price', numberBelow: 20 }];
    const price = (text: string, changed: boolean) => ({ probes: [found('.price', text)], changed });
    const outcomes = run(
      rules,
      price('$24.99', false),
      price('$19.99', false),
      price('$19.99', false),
      price('$19.99', true),
      price('$19.99', true),
    );
    expect(outcomes.map((o) => o.met)).toEqual([false, true, true, true, false]);
  });

  it('rules that already hold on the baseline are told with the first change', () => {
    const rules: Rule[] = [{ selector: 'h1', textContains: 'sale' }];
    const outcomes = run(
      rules,
      { probes: [found('h1', 'Sale')], changed: false },
      [found('h1', 'Sale now')],
      [found('h1', 'Sale now!')],
    );
    expect(outcomes.map((o) => o.met)).toEqual([true, true, false]);
  });

  it('judges "was true" with the rule as it is now, so an edited threshold counts from what was read', () => {
    const before = evaluateConditions(
      [{ selector: '.price', numberBelow: 20 }],
      [found('.price', '$19.00')],
      undefined,
    );
    expect(before.met).toBe(true);
    // The threshold is lowered to 15: 19 was not below 15, so 14 is newly below it.
    const after = evaluateConditions(
      [{ selector: '.price', numberBelow: 15 }],
      [found('.price', '$14.00')],
      told(before.results),
    );
    expect(after.met).toBe(true);
    // Raised to 25 instead: 19 was below 25 already, so 18 is not news.
    const raised = evaluateConditions(
      [{ selector: '.price', numberBelow: 25 }],
      [found('.price', '$18.00')],
      told(before.results),
    );
    expect(raised.met).toBe(false);
  });

  it('matches previous results by index, selector and test: a rule that moved or changed test was not true', () => {
    const previous = told([{ index: 0, selector: '.a', test: 'appears', met: true, value: 'x' }]);
    expect(evaluateConditions([{ selector: '.a', appears: true }], [found('.a', 'x')], previous).met).toBe(false);
    expect(evaluateConditions([{ selector: '.b', appears: true }], [found('.b', 'x')], previous).met).toBe(true);
    expect(evaluateConditions([{ selector: '.a', textContains: 'x' }], [found('.a', 'x')], previous).met).toBe(true);
    const moved = evaluateConditions(
      [
        { selector: '.z', disappears: true },
        { selector: '.a', appears: true },
      ],
      [missing('.z'), found('.a', 'x')],
      previous,
    );
    expect(moved.met).toBe(true);
  });
});

describe('evaluateConditions: each test', () => {
  it('textContains / textNotContains ignore case and spacing', () => {
    const rules: Rule[] = [
      { selector: '.s', textContains: 'IN  STOCK' },
      { selector: '.s', textNotContains: 'sold out' },
      { selector: '.s', textContains: 'ships today' },
    ];
    const [o] = run(rules, [
      found('.s', 'Only 3 left — in stock'),
      found('.s', 'Only 3 left — in stock'),
      found('.s', 'Only 3 left — in stock'),
    ]);
    expect(o!.results.map((r) => r.met)).toEqual([true, true, false]);
    expect(o!.results[0]!.value).toBe('Only 3 left — in stock');
    expect(o!.errors).toEqual([]);
  });

  it('textNotContains is false when nothing matches (and says so)', () => {
    const [o] = run([{ selector: '.s', textNotContains: 'sold out' }], [missing('.s')]);
    expect(o!.results[0]).toMatchObject({ met: false, value: null });
    expect(o!.errors).toEqual(['notifyWhen[0] (.s): the selector matches nothing']);
  });

  it("numberAbove reads the first number with the element's locale", () => {
    const rules: Rule[] = [{ selector: '.n', numberAbove: 1000 }];
    expect(evaluateConditions(rules, [found('.n', '1.299,00 €', 'de-DE')], undefined).results[0]).toMatchObject({
      met: true,
      value: 1299,
    });
    expect(evaluateConditions(rules, [found('.n', '1.299', 'en-US')], undefined).results[0]).toMatchObject({
      met: false,
      value: 1.299,
    });
    expect(evaluateConditions(rules, [found('.n', '1000')], undefined).results[0]!.met).toBe(false); // strictly above
  });

  it('numberBelow is strict', () => {
    expect(
      evaluateConditions([{ selector: '.n', numberBelow: 20 }], [found('.n', '20.00')], undefined).results[0]!.met,
    ).toBe(false);
  });

  it('a number rule on text without a number is false with an error, and keeps the text as its value', () => {
    const [o] = run([{ selector: '.n', numberBelow: 20 }], [found('.n', 'Sold out')]);
    expect(o!.results[0]).toMatchObject({ met: false, value: 'Sold out' });
    expect(o!.errors).toEqual(["notifyWhen[0] (.n): no number in the element's text"]);
    expect(o!.met).toBe(false);
  });

  it("numberChanged is true whenever the number differs from the previous capture's, and each change is news", () => {
    const rules: Rule[] = [{ selector: '.n', numberChanged: true }];
    const n = (text: string) => [found('.n', text, 'en-US')];
    const outcomes = run(rules, n('$24.99'), n('$19.99'), n('$18.99'), n('$18.99'), n('Sold out'), n('$18.99'));
    expect(outcomes.map((o) => o.results[0]!.met)).toEqual([false, true, true, false, false, false]);
    expect(outcomes.map((o) => o.met)).toEqual([false, true, true, false, false, false]);
    // No previous number (first capture, or the previous had none): not a change.
    expect(outcomes[5]!.results[0]!.value).toBe(18.99);
  });

  it('appears: true when something matches, false without an error when nothing does', () => {
    const outcomes = run(
      [{ selector: '.banner', appears: true }],
      [missing('.banner')],
      [found('.banner', 'Sale!')],
      [found('.banner', 'Sale!')],
    );
    expect(outcomes.map((o) => o.met)).toEqual([false, true, false]);
    expect(outcomes[0]!.errors).toEqual([]);
    expect(outcomes[1]!.results[0]!.value).toBe('Sale!');
  });

  it('disappears: true when nothing matches (no error), false while something does', () => {
    const outcomes = run(
      [{ selector: '.banner', disappears: true }],
      [found('.banner', 'Sale!')],
      [missing('.banner')],
      [missing('.banner')],
    );
    expect(outcomes.map((o) => o.met)).toEqual([false, true, false]);
    expect(outcomes.map((o) => o.results[0]!.value)).toEqual(['Sale!', null, null]);
    expect(outcomes.flatMap((o) => o.errors)).toEqual([]);
  });

  it('a selector that matches nothing makes any other rule false with an error', () => {
    const rules: Rule[] = [
      { selector: '#nope', textContains: 'x' },
      { selector: '#nope', numberBelow: 1 },
      { selector: '#nope', numberChanged: true },
    ];
    const o = evaluateConditions(
      rules,
      rules.map((r) => missing(r.selector!)),
      undefined,
    );
    expect(o.results.map((r) => [r.met, r.value])).toEqual([
      [false, null],
      [false, null],
      [false, null],
    ]);
    expect(o.errors).toEqual([0, 1, 2].map((i) => `notifyWhen[${i}] (#nope): the selector matches nothing`));
    expect(o.met).toBe(false);
  });

  it('an invalid selector is false with its error, even for disappears', () => {
    const probe: Probe = { selector: 'a[', found: false, text: null, lang: null, error: 'not a valid CSS selector' };
    const o = evaluateConditions([{ selector: 'a[', disappears: true }], [probe], undefined);
    expect(o.results[0]).toMatchObject({ met: false, value: null });
    expect(o.errors).toEqual(['notifyWhen[0] (a[): not a valid CSS selector']);
    expect(o.met).toBe(false);
  });
});
