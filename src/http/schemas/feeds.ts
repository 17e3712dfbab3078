// POST /api/feeds: which changes a feed shows — one monitor's, a tag's monitors', or all of the key's.
import { z } from 'zod';
import { MAX_QUERY_TOKEN_CHARS } from './string-caps.js';

/** As monitors' tags are (issue 28): 1–40 letters, digits, spaces and -_.:/ once trimmed. */
export const FEED_TAG = /^[\p{L}\p{N} _.:/-]{1,40}$/u;

export const feedRequestSchema = z
  .object({
    scope: z.enum(['monitor', 'tag', 'key']).describe('monitor: one monitor; tag: monitors with a tag; key: all'),
    monitorId: z
      .string()
      .min(1)
      .max(MAX_QUERY_TOKEN_CHARS)
      .optional()
      .describe('scope "monitor": the monitor (of this key)'),
    tag: z
      .string()
      .trim()
      .regex(FEED_TAG, 'a tag is 1–40 letters, digits, spaces and -_.:/')
      .optional()
      .describe('scope "tag": the tag, compared case-insensitively'),
  })
  .strict()
  .superRefine((f, ctx) => {
    const need = (field: 'monitorId' | 'tag', wanted: boolean) => {
      if (wanted && f[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required with scope "${f.scope}"` });
      if (!wanted && f[field] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} is only for scope "${field === 'tag' ? 'tag' : 'monitor'}"`,
        });
    };
    need('monitorId', f.scope === 'monitor');
    need('tag', f.scope === 'tag');
  });

export type FeedRequest = z.infer<typeof feedRequestSchema>;
