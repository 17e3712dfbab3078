// notifyWhen: the monitor's rules evaluated on what its capture read from the page (the probes and the
// product), and whether they now call for a notification. A change is told when every rule holds and at
// least one of them did not hold on the previous capture: "tell me when the price drops below 20" fires
// once, when it drops, not again at every later change while it stays below. Rules that came to hold on
// a capture that was not a change (nothing was told) stay news until a change tells them. Rules nest in
// {all} and {any} groups; a `while` rule only has to hold.
import { resultPath, type ConditionResult } from '../domain/capture-findings.js';
import {
  groupParts,
  isGroup,
  isPriceTest,
  testOf,
  type Rule,
  type RuleEntry,
  type RuleTest,
  type SelectorTest,
} from '../domain/notify-rules.js';
import type { Probe } from '../domain/page-facts.js';
import type { ProductFacts } from '../domain/product.js';
import { compileWithFlags } from '../diff/text/ignore-text.js';
import { firstNumber } from '../domain/number-parse.js';
import { evaluatePriceRule, priceHolds, priceRepeats } from './price-rules.js';

export { testOf } from '../domain/notify-rules.js';

export interface ConditionOutcome {
  /** One per rule, depth first through groups. */
  results: ConditionResult[];
  /** Why rules could not be read (selector matches nothing, invalid selector, no number, no price): one line each. */
  errors: string[];
  /** null without rules; else every rule is true and one became true (see evaluateConditions). */
  met: boolean | null;
}

/** What the previous capture (the baseline this one is compared with) recorded. */
export interface PreviousCapture {
  conditions: ConditionResult[];
  conditionsMet: boolean | null;
  changed: boolean;
  /** The price and stock it read; absent or null when it read none. */
  product?: ProductFacts | null;
}

/**
 * Whether an entry is news on this capture: 'new' when it came to hold, 'repeat' when it held already and
 * holds again in a way that is news each time (numberChanged, a further drop below priceBelow...).
 */
type News = 'new' | 'repeat' | null;

interface Judged {
  holds: boolean;
  heldBefore: boolean;
  news: News;
  /** A while rule, or a group of only while rules: it only has to hold. */
  onlyWhile: boolean;
}

/**
 * The rules against this capture's probes (a selector rule reads the probe of its selector) and product,
 * and the previous capture's record. A rule is true when:
 * - textContains / textNotContains: the first match's text contains / does not contain the string,
 *   ignoring case (textNotContains is false when nothing matches);
 * - textMatches / textNotMatches: the RE2 pattern, with its flags (default "i"), matches / does not match it;
 * - numberBelow / numberAbove: the first number in the text is below / above the value;
 * - numberChanged: there is a number and it differs from the one the previous capture read;
 * - appears / disappears: something / nothing matches the selector;
 * - the price rules: see price-rules.ts.
 * A selector that matches nothing makes the rule false with an error, except for appears (false: that
 * is its answer) and disappears (true). An invalid selector, or a number rule on text without a
 * number, is false with an error.
 * `met` is true when every entry holds now and either one of them is news (a rule that did not hold on
 * the previous capture, or that repeats; a group that came to hold, or in which a rule repeats), or the
 * previous capture had them met but was no change, so nothing was told (a price that dropped on a capture
 * whose pixels did not change is told with the next change while it stays low), or every rule is a while
 * rule. "Held before" is judged with the rule as it is now (a threshold may have been edited) from what
 * that capture read; a rule the previous capture does not have at the same path with the same selector
 * and test (first capture, rule added or moved) did not hold.
 */
export function evaluateConditions(
  entries: RuleEntry[],
  probes: Probe[],
  previousCapture: PreviousCapture | undefined,
  product: ProductFacts | null = null,
): ConditionOutcome {
  if (entries.length === 0) return { results: [], errors: [], met: null };
  const judge = new Judge(probes, product, previousCapture);
  const top = judge.group('all', entries, '');
  // Met last time on a capture that was no change: monitor.changed was not sent, so it is still news.
  const untold = previousCapture?.conditionsMet === true && !previousCapture.changed;
  const met = top.holds && (top.news !== null || untold || top.onlyWhile);
  return { results: judge.results, errors: judge.errors, met };
}

class Judge {
  readonly results: ConditionResult[] = [];
  readonly errors: string[] = [];

  constructor(
    private readonly probes: Probe[],
    private readonly product: ProductFacts | null,
    private readonly previous: PreviousCapture | undefined,
  ) {}

  group(kind: 'all' | 'any', entries: RuleEntry[], prefix: string): Judged {
    const judged = entries.map((entry, i) => {
      const path = `${prefix}${i}`;
      if (!isGroup(entry)) return this.rule(entry, path);
      const inner = groupParts(entry);
      return this.group(inner.kind, inner.entries, `${path}.${inner.kind}.`);
    });
    const onlyWhile = judged.every((j) => j.onlyWhile);
    if (kind === 'all') {
      const holds = judged.every((j) => j.holds);
      const heldBefore = judged.every((j) => j.heldBefore);
      const news: News = holds && judged.some((j) => j.news) ? (heldBefore ? 'repeat' : 'new') : null;
      return { holds, heldBefore, news, onlyWhile };
    }
    // any: news when it comes to hold through a rule that is news, or when a rule in it that holds repeats.
    const holding = judged.filter((j) => j.holds);
    const heldBefore = judged.some((j) => j.heldBefore);
    let news: News = null;
    if (!heldBefore && holding.some((j) => j.news)) news = 'new';
    else if (holding.some((j) => j.news === 'repeat')) news = 'repeat';
    return { holds: holding.length > 0, heldBefore, news, onlyWhile };
  }

  rule(rule: Rule, path: string): Judged {
    const index = this.results.length;
    const test = testOf(rule);
    const selector = rule.selector ?? null;
    const before = this.previous?.conditions.find(
      (p) => resultPath(p) === path && p.selector === selector && p.test === test,
    );
    let verdict: Verdict;
    let heldBefore: boolean;
    let repeats: boolean;
    if (isPriceTest(test)) {
      verdict = evaluatePriceRule(rule, test, this.product, this.previous?.product);
      heldBefore = before !== undefined && priceWasTrue(rule, test, before);
      repeats = priceRepeats(test, this.product, this.previous?.product);
    } else {
      const probe = this.probes.find((p) => p.selector === selector);
      verdict = evaluate(rule, test, probe, before);
      heldBefore = before !== undefined && wasTrue(rule, test, before);
      repeats = test === 'numberChanged';
    }
    const { met, value, error } = verdict;
    if (error) this.errors.push(`notifyWhen[${path}] (${selector ?? test}): ${error}`);
    this.results.push({ index, path, selector, test, met, value, ...(rule.while && { while: true as const }) });
    const news: News = !met || rule.while ? null : !heldBefore ? 'new' : repeats ? 'repeat' : null;
    return { holds: met, heldBefore, news, onlyWhile: rule.while === true };
  }
}

/** Whether a price rule, as it is now, held on a previous capture, judged from what that capture read. */
function priceWasTrue(rule: Rule, test: RuleTest, before: ConditionResult): boolean {
  if (test === 'priceBelow' || test === 'priceAbove' || test === 'priceOutside')
    return typeof before.value === 'number' && priceHolds(rule, test, before.value);
  return before.met;
}

interface Verdict {
  met: boolean;
  value: string | number | null;
  error?: string;
}

function evaluate(
  rule: Rule,
  test: SelectorTest,
  probe: Probe | undefined,
  before: ConditionResult | undefined,
): Verdict {
  // defensive: probes follow the rules
  if (!probe) return { met: false, value: null, error: 'the element was not read' };
  if (probe.error) return { met: false, value: null, error: probe.error };
  if (!probe.found || probe.text === null) {
    if (test === 'disappears') return { met: true, value: null };
    if (test === 'appears') return { met: false, value: null };
    return { met: false, value: null, error: 'the selector matches nothing' };
  }
  const text = probe.text;
  switch (test) {
    case 'appears':
      return { met: true, value: text };
    case 'disappears':
      return { met: false, value: text };
    case 'textContains':
    case 'textNotContains':
      return { met: textHolds(rule, test, text), value: text };
    case 'textMatches':
    case 'textNotMatches': {
      const held = patternHolds(rule, test, text);
      return typeof held === 'string' ? { met: false, value: text, error: held } : { met: held, value: text };
    }
    case 'numberBelow':
    case 'numberAbove':
    case 'numberChanged': {
      const number = firstNumber(text, probe.lang);
      if (number === null) return { met: false, value: text, error: "no number in the element's text" };
      const earlier = typeof before?.value === 'number' ? before.value : null;
      const met = test === 'numberChanged' ? earlier !== null && number !== earlier : numberHolds(rule, test, number);
      return { met, value: number };
    }
  }
}

/** Whether the rule, as it is now, held on a previous capture, judged from what that capture read. */
function wasTrue(rule: Rule, test: RuleTest, before: ConditionResult): boolean {
  switch (test) {
    case 'textContains':
    case 'textNotContains':
      return typeof before.value === 'string' && textHolds(rule, test, before.value);
    case 'textMatches':
    case 'textNotMatches':
      return typeof before.value === 'string' && patternHolds(rule, test, before.value) === true;
    case 'numberBelow':
    case 'numberAbove':
      return typeof before.value === 'number' && numberHolds(rule, test, before.value);
    default:
      return before.met;
  }
}

function textHolds(rule: Rule, test: 'textContains' | 'textNotContains', text: string): boolean {
  const contains = fold(text).includes(fold((test === 'textContains' ? rule.textContains : rule.textNotContains)!));
  return test === 'textContains' ? contains : !contains;
}

/**
 * Whether the pattern matches somewhere in the text (textNotMatches: nowhere), or why it cannot be run
 * (a stored pattern the schema would now refuse). RE2 matches in time linear in the text, and the text is
 * at most MAX_PROBE_TEXT characters, so this runs on the calling thread: microseconds per rule.
 */
function patternHolds(rule: Rule, test: 'textMatches' | 'textNotMatches', text: string): boolean | string {
  const compiled = compileWithFlags(
    (test === 'textMatches' ? rule.textMatches : rule.textNotMatches)!,
    rule.flags ?? 'i',
  );
  if ('problem' in compiled) return `the pattern ${compiled.problem}`;
  const found = compiled.matcher(text).find();
  return test === 'textMatches' ? found : !found;
}

function numberHolds(rule: Rule, test: 'numberBelow' | 'numberAbove', n: number): boolean {
  return test === 'numberBelow' ? n < rule.numberBelow! : n > rule.numberAbove!;
}

/** Case-insensitive, whitespace-insensitive comparison form (the page's text is read with whitespace collapsed). */
function fold(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
