// Recording an event to be told to a receiver. Callers do this inside the transaction that makes the
// change the event reports, so a crash can lose neither: the dispatcher sends what the outbox holds.
import { randomBytes } from 'node:crypto';
import type { ChannelDeliveryFields, DeliveryStore } from '../stores/webhook-deliveries.js';
import { newMessageId } from './sign.js';

export type EventType =
  | 'job.succeeded'
  | 'job.failed'
  | 'monitor.changed'
  | 'capture.completed'
  | 'capture.failed'
  /** A monitor's selecting filter matched nothing diff.filterMissingAfter captures in a row (sent once). */
  | 'monitor.filter_missing'
  /** Asked for with POST /api/monitors/{id}/test-webhook: a receiver can be tried without a capture. */
  | 'monitor.test'
  /** Asked for with POST /api/channels/{id}/test: a channel can be tried without a capture. */
  | 'channel.test';

/** Every event type, in the order /docs and the OpenAPI document list them. */
export const EVENT_TYPES: readonly EventType[] = [
  'monitor.changed',
  'capture.completed',
  'capture.failed',
  'monitor.filter_missing',
  'monitor.test',
  'channel.test',
  'job.succeeded',
  'job.failed',
];

export interface OutgoingEvent {
  keyId: string;
  url: string;
  type: EventType;
  data: Record<string, unknown>;
  jobId?: string;
  monitorId?: string;
  /** Told to a channel rather than to `url` (then a display target that reveals no secret). */
  channel?: ChannelDeliveryFields;
}

/** The body every attempt sends (Standard Webhooks: `{type, timestamp, data}`); fixed when recorded. */
export function eventBody(type: EventType, data: Record<string, unknown>, now: Date): string {
  return JSON.stringify({ type, timestamp: now.toISOString(), data });
}

/** Records the event as a pending delivery, due now; its id. */
export async function recordEvent(deliveries: DeliveryStore, event: OutgoingEvent, now: Date): Promise<string> {
  const id = `dlv_${randomBytes(10).toString('hex')}`;
  await deliveries.insert(
    {
      id,
      keyId: event.keyId,
      messageId: newMessageId(),
      eventType: event.type,
      url: event.url,
      payload: eventBody(event.type, event.data, now),
      jobId: event.jobId,
      monitorId: event.monitorId,
      channel: event.channel,
    },
    now,
  );
  return id;
}
