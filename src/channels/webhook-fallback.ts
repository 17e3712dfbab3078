// TEMPORARY (issue 28, alerts-channels): a minimal sender for `webhook` channels so the outbox side of
// channels can be built and tested before the channel messages land. It POSTs the alerts as JSON
// `{"alerts": [{type, timestamp, data}…]}` with the channel's headers, under the egress policy. The
// integrator deletes this file at merge: deliverToChannel (deliver.ts) sends every type, templates included.
import type { EgressPolicy } from '../egress/policy.js';
import { sendWebhook, type SendResult } from '../webhooks/send.js';
import { deliverToChannel, type AlertItem, type SendableChannel } from './deliver.js';

export function temporaryChannelSender(egress: EgressPolicy, timeoutMs: number) {
  return (channel: SendableChannel, alerts: AlertItem[]): Promise<SendResult> => {
    const { type, url, headers } = channel.settings;
    if (type !== 'webhook' || url === undefined) return deliverToChannel(undefined, channel, alerts);
    const body = JSON.stringify({ alerts });
    return sendWebhook(egress, url, { ...headers, 'content-type': 'application/json' }, body, timeoutMs);
  };
}
