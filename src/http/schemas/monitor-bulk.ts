// POST /api/monitors/bulk and GET /api/monitors?tag=: acting on many monitors by tag or by ids.
import { z } from 'zod';
import { MAX_QUERY_TOKEN_CHARS } from './string-caps.js';
import { tagSchema } from './monitors.js';
import { pagingQuery } from './lists.js';

export const BULK_ACTIONS = ['pause', 'resume', 'run', 'delete'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
/** How many ids one bulk request may name. */
export const MAX_BULK_IDS = 100;

export const bulkRequest = z
  .object({
    action: z.enum(BULK_ACTIONS).describe('What to do to each monitor'),
    tag: tagSchema.optional().describe('Every monitor of the key with this tag (compared without case)'),
    ids: z
      .array(z.string().min(1).max(MAX_QUERY_TOKEN_CHARS))
      .min(1)
      .max(MAX_BULK_IDS)
      .refine((ids) => new Set(ids).size === ids.length, 'each id at most once')
      .optional()
      .describe(`These monitors (at most ${MAX_BULK_IDS})`),
  })
  .strict()
  .refine((b) => (b.tag === undefined) !== (b.ids === undefined), {
    message: 'give either tag or ids, not both',
    path: ['tag'],
  });

const failure = z.object({ id: z.string(), error: z.object({ code: z.string(), message: z.string() }) });

export const bulkResult = z.object({
  action: z.enum(BULK_ACTIONS),
  matched: z.number().int().describe('How many monitors the tag or ids named'),
  done: z.array(z.string()).describe('The ids it was done to'),
  failed: z.array(failure).describe('The ids it was not done to, each with why (not_found for an id the key has not)'),
});

export const tagList = z.object({
  tags: z.array(z.object({ tag: z.string(), monitors: z.number().int() })),
});

export const monitorListQuery = pagingQuery
  .extend({ tag: tagSchema.optional().describe('Only monitors with this tag (compared without case)') })
  .strict();
