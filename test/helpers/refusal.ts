// What the HTTP layer sends for a refused body: parseBody must throw 400 invalid_request, and its
// details ({path, message}, path dotted; an unknown field named by its own path) are returned.
import { expect } from 'vitest';
import type { z } from 'zod';
import { AppError } from '../../src/errors.js';
import { parseBody } from '../../src/http/validate.js';

export function refusalDetails(schema: z.ZodType, body: unknown): { path: string; message: string }[] {
  try {
    parseBody(schema, body);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).code).toBe('invalid_request');
    return (err as AppError).extra.details ?? [];
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}
