// Zod's issues in words: one plain sentence per invalid field that names it, gives the limit in the
// units a person uses (px, s, characters, MiB) and says what to do. Zod's defaults ("Too big: expected
// number to be <=3840") speak the schema's language, not the caller's. Messages a schema writes itself
// (refinements, code "custom") are already worded for the field and are kept as they are.
import type { z } from 'zod';
import { humanMs, humanNumber } from '../domain/units.js';

type Issue = z.core.$ZodIssue;

/** Fields whose numbers are milliseconds (said in seconds too) or pixels, by their last path segment. */
const MS_FIELDS = new Set(['timeout', 'delay']);
const PX_FIELDS = new Set(['width', 'height', 'x', 'y']);
/** What an array field holds, for "at most 20 steps". */
const ITEMS: Record<string, string> = {
  steps: 'steps',
  cookies: 'cookies',
  notifyWhen: 'rules',
  notify: 'events',
  ignoreRegions: 'regions',
};

function quantity(field: string, n: number): string {
  const leaf = field.split('.').pop() ?? field;
  if (MS_FIELDS.has(leaf)) return n >= 1000 ? `${humanMs(n)} (${n} ms)` : `${n} ms`;
  if (PX_FIELDS.has(leaf)) return `${humanNumber(n)} px`;
  return humanNumber(n);
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text (a JSON string)',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list (a JSON array)',
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function tooBig(field: string, issue: Extract<Issue, { code: 'too_big' }>): string {
  const max = Number(issue.maximum);
  const below = issue.inclusive === false;
  switch (issue.origin) {
    case 'string':
      return `${field} can be at most ${humanNumber(max)} characters long: shorten it.`;
    case 'array':
    case 'set': {
      const items = ITEMS[field.split('.').pop() ?? ''] ?? 'items';
      return `${field} can hold at most ${humanNumber(max)} ${items}: remove some.`;
    }
    default:
      return below
        ? `${field} must be less than ${quantity(field, max)}: give a smaller number.`
        : `${field} can be at most ${quantity(field, max)}: give a smaller number.`;
  }
}

function tooSmall(field: string, issue: Extract<Issue, { code: 'too_small' }>): string {
  const min = Number(issue.minimum);
  const above = issue.inclusive === false;
  switch (issue.origin) {
    case 'string':
      return min <= 1
        ? `${field} cannot be empty: fill it in, or leave the field out.`
        : `${field} must be at least ${humanNumber(min)} characters long.`;
    case 'array':
    case 'set':
      return `${field} must hold at least ${humanNumber(min)} ${ITEMS[field.split('.').pop() ?? ''] ?? 'items'}: add some.`;
    default:
      return above
        ? `${field} must be more than ${quantity(field, min)}: give a larger number.`
        : `${field} must be at least ${quantity(field, min)}: give a larger number.`;
  }
}

/** Zod's own default wordings (v4); anything else was written by a schema for its field and is kept. */
const ZOD_DEFAULT = /^(Invalid|Too (big|small)|Expected|Unrecognized)\b/;

/** One sentence for `issue` at `field` (its dotted path); `value` is what the caller sent there. */
export function issueSentence(field: string, issue: Issue, value: unknown): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  const name = field || 'The body';
  switch (issue.code) {
    case 'too_big':
      return tooBig(name, issue);
    case 'too_small':
      return tooSmall(name, issue);
    case 'invalid_type': {
      const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      if (value === undefined) return `${name} is required: add it, as ${expected}.`;
      if (typeof value === 'number' && (issue.expected === 'int' || issue.expected === 'number'))
        return `${name} must be ${expected}, not ${value}: round it.`;
      return `${name} must be ${expected}, not ${typeOf(value)}: change its type.`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `${name} must be ${JSON.stringify(issue.values[0])}.`
        : `${name} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}: pick one of these.`;
    case 'not_multiple_of':
      return `${name} must be a multiple of ${String(issue.divisor)}: round it.`;
    case 'invalid_format':
      return `${name} is not in the expected format (${issue.format}): correct it.`;
    case 'invalid_union':
      return `${name} is not valid here: see the API reference (/docs) for the forms it takes.`;
    case 'invalid_key':
    case 'invalid_element':
      return `${name} holds an invalid ${issue.code === 'invalid_key' ? 'key' : 'entry'}: correct or remove it.`;
    default:
      return issue.message;
  }
}

/** The top-level message for a list of invalid fields: the one sentence, or how many and which. */
export function invalidFieldsMessage(details: { path: string; message: string }[]): string {
  if (details.length === 1) return `The request has 1 invalid field: ${details[0]!.message}`;
  const fields = [...new Set(details.map((d) => d.path || 'the body'))];
  const named = fields.length > 1 ? `${fields.slice(0, -1).join(', ')} and ${fields.at(-1)}` : fields[0];
  return `The request has ${details.length} invalid fields (${named}); details has a sentence for each.`;
}
