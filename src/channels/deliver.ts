// Sending alerts to a channel: one message for one alert, one digest message for several. The dispatcher
// calls deliverToChannel for deliveries that name a channel; each channel type's file (email.ts, slack.ts,
// discord.ts, teams.ts, ntfy.ts, webhook.ts) makes and sends its own format. Every request obeys the
// egress policy, pinned to the checked address (src/webhooks/send.ts; the SMTP host likewise in email.ts).
import type { ChannelSettings } from '../domain/channels.js';
import type { EgressPolicy } from '../egress/policy.js';
import type { EventType } from '../webhooks/outbox.js';
import type { SendResult } from '../webhooks/send.js';
import { regionCrops, type Crop, type CropBox } from './crops.js';
import type { EmailSettings } from './email-settings.js';
import { defaultTitle, cut } from './message-text.js';
import { renderTemplate, TemplateError, checkTemplate as checkLiquid } from './templates.js';
import { alertVariables, messageVariables, type MessageVariables, type MonitorInfo } from './variables.js';
import { sendEmail } from './email.js';
import { sendSlack } from './slack.js';
import { sendDiscord } from './discord.js';
import { sendTeams } from './teams.js';
import { sendNtfy } from './ntfy.js';
import { sendJsonWebhook } from './webhook.js';

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

/** What sending needs from the service (src/app/compose.ts builds it). */
export interface ChannelDeliveryDeps {
  egress: EgressPolicy;
  /** The service's SMTP settings (`email.*`); no host: email channels refuse to send, saying so. */
  email: EmailSettings;
  /** A capture's stored PNG, if the key owns it and it is still kept; undefined otherwise. */
  captureImage(keyId: string, captureId: string): Promise<Buffer | undefined>;
  /** The key's monitor (name, url, tags), if it still exists. */
  monitor(keyId: string, monitorId: string): Promise<MonitorInfo | undefined>;
  /** `publicUrl` ('' when not set): the dashboard links are made with it. */
  publicUrl: string;
  /**
   * An absolute URL of the capture's image that Slack and Teams can fetch without a key, if the service has
   * one; without it their messages are text (the capture's own imageUrl needs the key, so a chat service
   * could not fetch it, and Slack refuses a message whose image it cannot download).
   */
  publicImageUrl?(keyId: string, captureId: string): string | undefined;
  /** How long an attempt may take (webhooks.timeoutMs). */
  timeoutMs: number;
}

/** The crops of one alert of the message. */
export interface AlertCrops {
  /** Index in `vars.alerts`. */
  alert: number;
  crops: Crop[];
}

/** A message ready for its format: the variables, the heading, the template's text if any, the crops. */
export interface PreparedMessage {
  channel: SendableChannel;
  vars: MessageVariables;
  title: string;
  /** The body template's output; undefined: the format's built-in text. */
  body?: string;
  /** The before/after crops (read and cut once, on first use). */
  crops(): Promise<AlertCrops[]>;
  /** An image URL a chat service can fetch (deps.publicImageUrl), for a single alert only. */
  publicImage?: string;
}

/** Alerts of a digest whose crops are included (each with its first regions). */
export const DIGEST_CROPPED_ALERTS = 5;
/** Longest heading (subject, title), characters. */
export const MAX_TITLE_CHARS = 200;

export async function deliverToChannel(
  deps: ChannelDeliveryDeps,
  channel: SendableChannel,
  alerts: AlertItem[],
): Promise<SendResult> {
  const started = performance.now();
  const failed = (error: string): SendResult => ({
    ok: false,
    gone: false,
    blocked: false,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  if (alerts.length === 0) return failed('nothing to send');
  try {
    const message = await prepare(deps, channel, alerts);
    return await send(deps, message);
  } catch (err) {
    // A failed attempt, retried like any other: one channel's trouble never stops the dispatcher.
    if (err instanceof TemplateError) return failed(err.message);
    return failed(`the message could not be made: ${(err as Error).message ?? String(err)}`);
  }
}

function send(deps: ChannelDeliveryDeps, message: PreparedMessage): Promise<SendResult> {
  switch (message.channel.settings.type) {
    case 'email':
      return sendEmail(deps, message);
    case 'slack':
      return sendSlack(deps, message);
    case 'discord':
      return sendDiscord(deps, message);
    case 'teams':
      return sendTeams(deps, message);
    case 'ntfy':
      return sendNtfy(deps, message);
    case 'webhook':
      return sendJsonWebhook(deps, message);
    default:
      return Promise.reject(new Error(`unknown channel type ${String(message.channel.settings.type)}`));
  }
}

async function prepare(
  deps: ChannelDeliveryDeps,
  channel: SendableChannel,
  alerts: AlertItem[],
): Promise<PreparedMessage> {
  const monitors = new Map<string, Promise<MonitorInfo | undefined>>();
  const monitorOf = (id: unknown) => {
    if (typeof id !== 'string') return Promise.resolve(undefined);
    if (!monitors.has(id)) monitors.set(id, deps.monitor(channel.keyId, id));
    return monitors.get(id)!;
  };
  const perAlert = await Promise.all(
    alerts.map(async (a) => alertVariables(a, await monitorOf(a.data.monitorId), deps.publicUrl)),
  );
  const vars = messageVariables(perAlert);
  const { subject, body } = channel.settings.templates ?? {};
  // Webhook bodies are rendered by webhook.ts (the output must be JSON); the others here.
  const renderedBody =
    body && channel.settings.type !== 'webhook' ? await renderTemplate('body', body, { ...vars }) : undefined;
  const renderedTitle = subject
    ? (await renderTemplate('subject', subject, { ...vars })).replace(/\s+/g, ' ').trim()
    : '';
  let cropped: Promise<AlertCrops[]> | undefined;
  const captureId = vars.digest ? undefined : vars.alerts[0]?.capture?.id;
  const publicImage = captureId && deps.publicImageUrl?.(channel.keyId, captureId);
  return {
    channel,
    vars,
    title: cut(renderedTitle || defaultTitle(vars), MAX_TITLE_CHARS),
    ...(renderedBody !== undefined && { body: renderedBody }),
    crops: () => (cropped ??= cropsOf(deps, channel.keyId, alerts)),
    ...(publicImage && { publicImage }),
  };
}

/** Crops of the alerts that report changed regions (a digest's first DIGEST_CROPPED_ALERTS of them). */
async function cropsOf(deps: ChannelDeliveryDeps, keyId: string, alerts: AlertItem[]): Promise<AlertCrops[]> {
  const out: AlertCrops[] = [];
  for (const [index, alert] of alerts.entries()) {
    if (out.length >= DIGEST_CROPPED_ALERTS) break;
    const { captureId, baselineId, regions } = alert.data;
    if (typeof captureId !== 'string' || !Array.isArray(regions) || regions.length === 0) continue;
    const [after, before] = await Promise.all([
      deps.captureImage(keyId, captureId),
      typeof baselineId === 'string' ? deps.captureImage(keyId, baselineId) : Promise.resolve(undefined),
    ]);
    const crops = regionCrops(regions as CropBox[], after, before);
    if (crops.length) out.push({ alert: index, crops });
  }
  return out;
}

/** A template that does not parse: where and why. Undefined when it parses. */
export function checkTemplate(source: string): { line: number; message: string } | undefined {
  return checkLiquid(source);
}
