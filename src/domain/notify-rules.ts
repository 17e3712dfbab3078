// What a notifyWhen rule is, as the monitor service evaluates it; the HTTP schema
// (src/http/schemas/conditions.ts) validates requests into this shape.

export const RULE_TESTS = [
  'textContains',
  'textNotContains',
  'numberBelow',
  'numberAbove',
  'numberChanged',
  'appears',
  'disappears',
] as const;
export type RuleTest = (typeof RULE_TESTS)[number];

/** A selector and exactly one test (the schema makes sure of "exactly one"). */
export interface Rule {
  selector: string;
  textContains?: string;
  textNotContains?: string;
  numberBelow?: number;
  numberAbove?: number;
  numberChanged?: true;
  appears?: true;
  disappears?: true;
}
