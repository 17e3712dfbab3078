// JSON content through diff.filters' jsonPath filters: the values they select, in document order.
import type { Filter } from '../domain/filters.js';

export interface JsonSelection {
  /** The selected values (an array of every match when there is a jsonPath filter), or the document itself. */
  value: unknown;
  /** Indexes in diff.filters of jsonPath filters that selected nothing. */
  missing: number[];
}

/** Placeholder: the filters work replaces it; until then the document is compared whole. */
export function selectJson(value: unknown, _filters: Filter[]): JsonSelection {
  return { value, missing: [] };
}
