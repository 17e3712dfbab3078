// SKELETON (helper C replaces): notifyWhen rules evaluated on a capture's probes.
import type { ConditionResult } from '../db/captures.js';
import type { Rule } from '../http/schemas/conditions.js';
import type { Probe } from '../render/page-facts.js';

export interface ConditionOutcome { results: ConditionResult[]; errors: string[]; met: boolean | null }

export function evaluateConditions(rules: Rule[], _probes: Probe[], _previous: ConditionResult[] | undefined): ConditionOutcome {
  return { results: [], errors: [], met: rules.length === 0 ? null : false };
}
