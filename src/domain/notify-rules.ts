// What a notifyWhen entry is, as the monitor service evaluates it; the HTTP schema
// (src/http/schemas/conditions.ts) validates requests into this shape. An entry is a rule (one test) or
// a group of entries ({all} or {any}); the monitor's list itself is an "all".

/** Tests that read an element: the rule needs a selector. The order is the order "exactly one test" keeps. */
export const SELECTOR_TESTS = [
  'textContains',
  'textNotContains',
  'numberBelow',
  'numberAbove',
  'numberChanged',
  'appears',
  'disappears',
  'textMatches',
  'textNotMatches',
] as const;

/** Tests that read the capture's product (its price and availability): the rule takes no selector. */
export const PRICE_TESTS = [
  'priceBelow',
  'priceAbove',
  'priceOutside',
  'priceDropsBy',
  'priceRisesBy',
  'backInStock',
  'outOfStock',
] as const;

export const RULE_TESTS = [...SELECTOR_TESTS, ...PRICE_TESTS] as const;
export type RuleTest = (typeof RULE_TESTS)[number];
export type SelectorTest = (typeof SELECTOR_TESTS)[number];
export type PriceTest = (typeof PRICE_TESTS)[number];

/** Groups nest at most this deep below the monitor's list: {all: [{any: [{all: [rule]}]}]}. */
export const MAX_GROUP_DEPTH = 3;
/** Rules in all, counted through every group. */
export const MAX_RULES = 20;

/** A relative or absolute price movement against the previous capture's price (exactly one field). */
export interface PriceMove {
  percent?: number;
  amount?: number;
}

/** One test (the schema makes sure of "exactly one"); `selector` exactly for the selector tests. */
export interface Rule {
  selector?: string;
  textContains?: string;
  textNotContains?: string;
  numberBelow?: number;
  numberAbove?: number;
  numberChanged?: true;
  appears?: true;
  disappears?: true;
  /** An RE2 pattern the element's text must match (textNotMatches: must not). */
  textMatches?: string;
  textNotMatches?: string;
  /** Of textMatches / textNotMatches: a subset of "ims"; absent means "i". */
  flags?: string;
  priceBelow?: number;
  priceAbove?: number;
  /** [min, max], min < max: true when the price is below min or above max. */
  priceOutside?: [number, number];
  priceDropsBy?: PriceMove;
  priceRisesBy?: PriceMove;
  backInStock?: true;
  outOfStock?: true;
  /** The rule only has to hold; its becoming true is not news by itself. */
  while?: true;
}

export interface AllGroup {
  all: RuleEntry[];
}
export interface AnyGroup {
  any: RuleEntry[];
}
export type RuleGroup = AllGroup | AnyGroup;
export type RuleEntry = Rule | RuleGroup;

export function isGroup(entry: RuleEntry): entry is RuleGroup {
  return ('all' in entry && entry.all !== undefined) || ('any' in entry && entry.any !== undefined);
}

/** A group's kind and its entries. */
export function groupParts(group: RuleGroup): { kind: 'all' | 'any'; entries: RuleEntry[] } {
  return 'all' in group && group.all !== undefined
    ? { kind: 'all', entries: group.all }
    : { kind: 'any', entries: (group as AnyGroup).any };
}

/** Every rule with its path ("1.any.0"), depth first: the order of `index` in a capture's conditions. */
export function leafRules(entries: RuleEntry[], prefix = ''): { rule: Rule; path: string }[] {
  return entries.flatMap((entry, i) => {
    const path = `${prefix}${i}`;
    if (!isGroup(entry)) return [{ rule: entry, path }];
    const { kind, entries: inner } = groupParts(entry);
    return leafRules(inner, `${path}.${kind}.`);
  });
}

/** The schema guarantees exactly one test per rule. */
export function testOf(rule: Rule): RuleTest {
  return RULE_TESTS.find((t) => rule[t] !== undefined)!;
}

export function isPriceTest(test: RuleTest): test is PriceTest {
  return (PRICE_TESTS as readonly string[]).includes(test);
}
