// Sending alerts to a channel: one message for one alert, one digest for several. Filled in by the
// channel messages work (issue 28); the dispatcher calls it for deliveries that name a channel.
import type { ChannelSettings } from '../domain/channels.js';
import type { EventType } from '../webhooks/outbox.js';
import type { SendResult } from '../webhooks/send.js';

/** One event to tell: the delivery's recorded payload, parsed. */
export interface AlertItem {
  type: EventType;
  /** The event's `data`, as a webhook receiver gets it. */
  data: Record<string, unknown>;
  /** The event's timestamp (ISO 8601). */
  timestamp: string;
}

/** A channel ready to send: its settings with the write-only fields opened. */
export interface SendableChannel {
  id: string;
  keyId: string;
  settings: ChannelSettings;
}

export function deliverToChannel(_deps: unknown, _channel: SendableChannel, _alerts: AlertItem[]): Promise<SendResult> {
  return Promise.reject(new Error('channel delivery is not built yet'));
}

/** A template that does not parse: where and why. Undefined when it parses. */
export function checkTemplate(_source: string): { line: number; message: string } | undefined {
  return undefined;
}
