import type { z } from 'zod';
import { invalidRequest, type ErrorDetail } from '../errors.js';

/** Parse with a schema, or throw 400 invalid_request with one detail per bad (or unknown) field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('the body must be a JSON object', [{ path: '', message: 'expected an object' }]);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'unknown field' }));
    }
    return [{ path: path.join('.'), message: issue.message }];
  });
  throw invalidRequest(`the request has ${details.length} invalid field${details.length === 1 ? '' : 's'}`, details);
}
