// The webhook delivery log: a delivery, and one with every attempt.
import { z } from 'zod';
import { DELIVERY_STATUSES } from '../../../domain/delivery-status.js';
import { EVENT_TYPES } from '../../../webhooks/outbox.js';
import { dateTime } from './common.js';
import { CHANNEL_TYPES } from '../../../domain/channels.js';

export const delivery = z.object({
  id: z.string(),
  eventType: z.enum(EVENT_TYPES),
  url: z
    .url()
    .describe(
      "Where it goes: a webhook's URL; for a channel a target that shows no secret (email: mailto: and the " +
        'recipients; others: the url\'s origin and "/••••")',
    ),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  lastAttemptAt: dateTime().nullable().optional(),
  lastResponseStatus: z.int().nullable().optional(),
  lastError: z.string().nullable().optional(),
  nextAttemptAt: dateTime().nullable().optional(),
  webhookId: z.string().describe('The webhook-id header: the same on every attempt'),
  jobId: z.string().optional(),
  monitorId: z.string().optional(),
  channelId: z.string().optional().describe("A channel's delivery: the channel"),
  channelType: z.enum(CHANNEL_TYPES).optional(),
  heldFor: z
    .enum(['digest', 'quiet_hours'])
    .optional()
    .describe("Pending and held for the channel's digest or quiet hours: nextAttemptAt is its release"),
  createdAt: dateTime(),
});

export const deliveryDetail = z.intersection(
  delivery,
  z.object({
    history: z
      .array(
        z.object({
          attempt: z.int().optional(),
          at: dateTime().optional(),
          durationMs: z.int().optional(),
          responseStatus: z.int().nullable().optional(),
          error: z.string().nullable().optional(),
        }),
      )
      .describe('Every attempt, oldest first'),
  }),
);
