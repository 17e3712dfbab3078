// How a filter of diff.filters is named to a person (in a filter_missing capture's error, a failed
// capture's reason), and which filters select, so that matching nothing is a filter_missing result.
import type { Filter } from '../domain/filters.js';

/** The filters that pick part of what was read: when one matches nothing, the capture is filter_missing. */
export type SelectingFilter = Extract<
  Filter,
  { css: string } | { xpath: string } | { jsonPath: string } | { extract: string }
>;

export function isSelecting(filter: Filter): filter is SelectingFilter {
  return 'css' in filter || 'xpath' in filter || 'jsonPath' in filter || 'extract' in filter;
}

/** 'diff.filters[2] (css ".price")': where the filter is in the monitor's settings, and what it says. */
export function filterLabel(filters: readonly Filter[], index: number): string {
  const filter = filters[index];
  if (!filter) return `diff.filters[${index}]`;
  const [kind, value] = Object.entries(filter)[0] as [string, unknown];
  const shown =
    typeof value === 'string' ? ` ${JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value)}` : '';
  return `diff.filters[${index}] (${kind}${shown})`;
}

/** The error message of a filter_missing capture: each selecting filter that matched nothing, named. */
export function missingMessage(filters: readonly Filter[], missing: readonly number[]): string {
  return [...new Set(missing)]
    .sort((a, b) => a - b)
    .map((index) => `${filterLabel(filters, index)} matched nothing`)
    .join('; ');
}
