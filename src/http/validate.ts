import type { z } from 'zod';
import { invalidRequest, type ErrorDetail } from '../errors.js';
import { invalidFieldsMessage, issueSentence } from './issue-words.js';

/** What the caller sent at `path` (undefined when absent), so a message can say "required" or name its type. */
function valueAt(body: unknown, path: PropertyKey[]): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Parse with a schema, or throw 400 invalid_request with one sentence per bad (or unknown) field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('The body must be a JSON object, such as {"url": "https://example.com"}.', [
      { path: '', message: 'expected an object' },
    ]);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const field = [...path, key].join('.');
        return {
          path: field,
          message: `${field} is not a field this request takes: check its spelling, or remove it.`,
        };
      });
    }
    const field = path.join('.');
    return [{ path: field, message: issueSentence(field, issue, valueAt(body, issue.path)) }];
  });
  throw invalidRequest(invalidFieldsMessage(details), details);
}
