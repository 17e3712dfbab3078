// JSON content through diff.filters' jsonPath filters: the values they select, in document order.
// jsonpath-plus evaluates the paths with its safe evaluator (`eval: 'safe'`): filter expressions such as
// `$.items[?(@.price < 10)]` run on a small expression interpreter of its own, never as JavaScript (no
// `eval`, no `vm`), and reach no prototype properties. Several jsonPath filters select the union of what
// each selects, each value once, in the order it appears in the document.
import { JSONPath } from 'jsonpath-plus';
import type { Filter } from '../domain/filters.js';
import { filterLabel } from './filter-names.js';

export interface JsonSelection {
  /** The selected values (an array of every match when there is a jsonPath filter), or the document itself. */
  value: unknown;
  /** Indexes in diff.filters of jsonPath filters that selected nothing. */
  missing: number[];
}

/** A jsonPath filter that could not be evaluated on this document (the message names it). */
export class JsonPathFailed extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'JsonPathFailed';
  }
}

interface Match {
  pointer: string;
  value: unknown;
}

/** `value` is the parsed document (JSON.parse's output); the filters are the monitor's whole list. */
export function selectJson(value: unknown, filters: Filter[]): JsonSelection {
  const paths = filters.flatMap((filter, index) => ('jsonPath' in filter ? [{ path: filter.jsonPath, index }] : []));
  if (paths.length === 0) return { value, missing: [] };
  const missing: number[] = [];
  const byPointer = new Map<string, Match>();
  for (const { path, index } of paths) {
    let found: Match[];
    try {
      // jsonpath-plus answers undefined (not []) for a null document.
      found =
        JSONPath<Match[] | undefined>({ path, json: value as object, eval: 'safe', wrap: true, resultType: 'all' }) ??
        [];
    } catch (err) {
      throw new JsonPathFailed(`${filterLabel(filters, index)} could not be evaluated: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (found.length === 0) missing.push(index);
    for (const match of found) if (!byPointer.has(match.pointer)) byPointer.set(match.pointer, match);
  }
  // One path's matches already come in document order; a union needs them put back in it.
  const matches = [...byPointer.values()];
  if (paths.length > 1) {
    const order = documentOrder(value);
    matches.sort((a, b) => (order.get(a.pointer) ?? 0) - (order.get(b.pointer) ?? 0));
  }
  return { value: matches.map((match) => match.value), missing };
}

/** Each JSON Pointer of the document (jsonpath-plus's spelling) with its place in a preorder walk. */
function documentOrder(root: unknown): Map<string, number> {
  const order = new Map<string, number>();
  const stack: [string, unknown][] = [['', root]];
  while (stack.length) {
    const [pointer, node] = stack.pop()!;
    order.set(pointer, order.size);
    if (node === null || typeof node !== 'object') continue;
    const entries: [string, unknown][] = Array.isArray(node)
      ? (node as unknown[]).map((v, i): [string, unknown] => [String(i), v])
      : Object.entries(node as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      stack.push([`${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, child]);
    }
  }
  return order;
}
