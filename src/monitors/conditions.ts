// notifyWhen: the monitor's rules evaluated on what its capture read from the page (the probes), and
// whether they now call for a notification. A change is told when every rule holds and at least one
// of them did not hold on the previous capture: "tell me when the price drops below 20" fires once,
// when it drops, not again at every later change while it stays below. Rules that came to hold on a
// capture that was not a change (nothing was told) stay news until a change tells them.
import type { ConditionResult } from '../domain/capture-findings.js';
import { RULE_TESTS, type Rule, type RuleTest } from '../domain/notify-rules.js';
import type { Probe } from '../domain/page-facts.js';
import { firstNumber } from './number-parse.js';

export interface ConditionOutcome {
  /** One per rule, in order. */
  results: ConditionResult[];
  /** Why rules could not be read (selector matches nothing, invalid selector, no number): one line each. */
  errors: string[];
  /** null without rules; else every rule is true and one became true (see evaluateConditions). */
  met: boolean | null;
}

/** What the previous capture (the baseline this one is compared with) recorded. */
export interface PreviousCapture {
  conditions: ConditionResult[];
  conditionsMet: boolean | null;
  changed: boolean;
}

/**
 * The rules against this capture's probes (probes[i] read rules[i].selector) and the previous capture's
 * record. A rule is true when:
 * - textContains / textNotContains: the first match's text contains / does not contain the string,
 *   ignoring case (textNotContains is false when nothing matches);
 * - numberBelow / numberAbove: the first number in the text is below / above the value;
 * - numberChanged: there is a number and it differs from the one the previous capture read;
 * - appears / disappears: something / nothing matches the selector.
 * A selector that matches nothing makes the rule false with an error, except for appears (false: that
 * is its answer) and disappears (true). An invalid selector, or a number rule on text without a
 * number, is false with an error.
 * `met` is true when every rule is true now and either at least one was not true on the previous capture,
 * or the previous capture had them met but was no change, so nothing was told (a price that dropped on a
 * capture whose pixels did not change is told with the next change while it stays low).
 * "Was true" is judged with the rule as it is now (a threshold may have been edited) from what that
 * capture read. A numberChanged rule that is true is always new (each change is news); a rule the
 * previous capture does not have (first capture, rule added or moved) was not true.
 */
export function evaluateConditions(
  rules: Rule[],
  probes: Probe[],
  previousCapture: PreviousCapture | undefined,
): ConditionOutcome {
  if (rules.length === 0) return { results: [], errors: [], met: null };
  const results: ConditionResult[] = [];
  const errors: string[] = [];
  const previous = previousCapture?.conditions;
  // Met last time on a capture that was no change: monitor.changed was not sent, so it is still news.
  let newlyTrue = previousCapture?.conditionsMet === true && !previousCapture.changed;
  rules.forEach((rule, index) => {
    const test = testOf(rule);
    const probe = probes[index]?.selector === rule.selector ? probes[index] : undefined;
    const before = previous?.find((p) => p.index === index && p.selector === rule.selector && p.test === test);
    const { met, value, error } = evaluate(rule, test, probe, before);
    if (error) errors.push(`notifyWhen[${index}] (${rule.selector}): ${error}`);
    results.push({ index, selector: rule.selector, test, met, value });
    if (met && (test === 'numberChanged' || !before || !wasTrue(rule, test, before))) newlyTrue = true;
  });
  return { results, errors, met: results.every((r) => r.met) && newlyTrue };
}

interface Verdict {
  met: boolean;
  value: string | number | null;
  error?: string;
}

function evaluate(rule: Rule, test: RuleTest, probe: Probe | undefined, before: ConditionResult | undefined): Verdict {
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

function numberHolds(rule: Rule, test: 'numberBelow' | 'numberAbove', n: number): boolean {
  return test === 'numberBelow' ? n < rule.numberBelow! : n > rule.numberAbove!;
}

/** Case-insensitive, whitespace-insensitive comparison form (the page's text is read with whitespace collapsed). */
function fold(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The schema guarantees exactly one test per rule. */
export function testOf(rule: Rule): RuleTest {
  return RULE_TESTS.find((t) => rule[t] !== undefined)!;
}
