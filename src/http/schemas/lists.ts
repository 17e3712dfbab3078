// Query strings of the list routes. Values arrive as strings, so numbers are coerced.
import { z } from 'zod';
import { JOB_STATUSES } from '../../domain/job-outcome.js';
import { DELIVERY_STATUSES } from '../../domain/delivery-status.js';
import { MAX_QUERY_TOKEN_CHARS } from './string-caps.js';

const paging = {
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Items per page, 1..100'),
  cursor: z.string().min(1).max(MAX_QUERY_TOKEN_CHARS).optional().describe('nextCursor of the previous page'),
};

export const pagingQuery = z.object(paging).strict();

export const jobListQuery = z
  .object({
    status: z.enum(JOB_STATUSES as [string, ...string[]]).optional(),
    ...paging,
  })
  .strict();

export const deliveryListQuery = z
  .object({
    jobId: z.string().min(1).max(MAX_QUERY_TOKEN_CHARS).optional(),
    monitorId: z.string().min(1).max(MAX_QUERY_TOKEN_CHARS).optional(),
    channelId: z.string().min(1).max(MAX_QUERY_TOKEN_CHARS).optional().describe("A channel's deliveries only"),
    status: z.enum(DELIVERY_STATUSES as [string, ...string[]]).optional(),
    ...paging,
  })
  .strict();
