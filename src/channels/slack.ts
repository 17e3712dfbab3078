// Slack channels: an incoming webhook (https://api.slack.com/messaging/webhooks) takes a JSON POST with
// `text` (the notification's fallback) and Block Kit `blocks` (https://api.slack.com/reference/block-kit/blocks):
// a header (plain_text, at most 150 characters), sections of mrkdwn (at most 3000 characters each), and an
// image block (`image_url`, `alt_text`) only when the service has an image URL Slack can fetch without a key
// (ChannelDeliveryDeps.publicImageUrl); otherwise the message is text with the capture's link (an incoming
// webhook takes no upload, and Slack refuses a message whose image it cannot download).
import type { SendResult } from '../webhooks/send.js';
import { sendRequest } from '../webhooks/send.js';
import type { ChannelDeliveryDeps, PreparedMessage } from './deliver.js';
import { cut, defaultText, type Markup } from './message-text.js';

/** Slack's mrkdwn: &, < and > are control characters and must be escaped. */
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const MRKDWN: Markup = {
  text: escape,
  removed: (s) => (s.trim() ? `~${escape(s)}~` : escape(s)),
  added: (s) => (s.trim() ? `*${escape(s)}*` : escape(s)),
  link: (label, url) => `<${url.replace(/[<>|]/g, encodeURIComponent)}|${escape(label)}>`,
  bold: (s) => `*${s}*`,
};

export const SLACK_HEADER_MAX = 150;
export const SLACK_SECTION_MAX = 3000;
/** Slack allows 50 blocks; the text is split into sections within that. */
const MAX_SECTIONS = 40;

/** `text` in pieces of at most SLACK_SECTION_MAX characters, split at line ends where it can be. */
function sections(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > 0 && out.length < MAX_SECTIONS) {
    if (rest.length <= SLACK_SECTION_MAX) {
      out.push(rest);
      break;
    }
    let at = rest.lastIndexOf('\n', SLACK_SECTION_MAX);
    if (at <= 0) at = SLACK_SECTION_MAX;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  return out;
}

export function slackPayload(message: PreparedMessage) {
  const text = message.body !== undefined ? escape(message.body) : defaultText(message.vars, MRKDWN);
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(message.title, SLACK_HEADER_MAX), emoji: false } },
    ...sections(text.trim() || ' ').map((t) => ({ type: 'section', text: { type: 'mrkdwn', text: t } })),
  ];
  if (message.publicImage)
    blocks.push({ type: 'image', image_url: message.publicImage, alt_text: `The capture of ${message.title}` });
  return { text: cut(message.title, SLACK_SECTION_MAX), blocks };
}

export function sendSlack(deps: ChannelDeliveryDeps, message: PreparedMessage): Promise<SendResult> {
  return sendRequest(deps.egress, message.channel.settings.url ?? '', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(slackPayload(message)),
    timeoutMs: deps.timeoutMs,
    describeRefusal: true,
  });
}
