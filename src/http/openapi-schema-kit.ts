// The small builders the hand-written OpenAPI schemas are made of (string, date-time, integer, URI, object,
// a box, a code with its message). Apart from openapi-schemas.ts because the capture schemas
// (openapi-capture-schemas.ts) are built from them too.
import type { JsonSchema } from './openapi-schemas.js';

export const str = (description?: string): JsonSchema => ({ type: 'string', ...(description && { description }) });
export const time = (description?: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  ...(description && { description }),
});
export const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description && { description }) });
export const url = (description?: string): JsonSchema => ({
  type: 'string',
  format: 'uri',
  ...(description && { description }),
});
export const obj = (
  properties: Record<string, JsonSchema>,
  required: string[] = [],
  extra: JsonSchema = {},
): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length && { required }),
  ...extra,
});

export const box = obj({ x: int(), y: int(), width: int(), height: int() }, ['x', 'y', 'width', 'height']);
export const codeAndMessage = obj({ code: str(), message: str() }, ['code', 'message']);
export const nullableStr = (description?: string): JsonSchema => ({
  type: ['string', 'null'],
  ...(description && { description }),
});
