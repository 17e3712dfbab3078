// Microsoft Teams channels: an incoming webhook or a Workflows ("When a Teams webhook request is received")
// URL takes a message with one Adaptive Card attachment, the envelope the docs give
// (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using#send-adaptive-cards-using-an-incoming-webhook):
// {type:'message', attachments:[{contentType:'application/vnd.microsoft.card.adaptive', contentUrl:null,
// content:{$schema, type:'AdaptiveCard', version, body:[…], actions:[…]}}]}. TextBlocks carry the text
// (Teams renders a subset of Markdown: bold and italics, no strike-through, so removed text is marked in
// words); an Image element only with an image URL Teams can fetch without a key (publicImageUrl); a button opens the
// capture in the dashboard.
import type { SendResult } from '../webhooks/send.js';
import { sendRequest } from '../webhooks/send.js';
import type { ChannelDeliveryDeps, PreparedMessage } from './deliver.js';
import { cut, defaultText, type Markup } from './message-text.js';

/** Adaptive Card TextBlock markdown: escape what would format. */
const escape = (s: string) => s.replace(/([\\*_[\]`])/g, '\\$1');

const CARD_MARKDOWN: Markup = {
  text: escape,
  removed: (s) => (s.trim() ? `(removed: ${escape(s)})` : escape(s)),
  added: (s) => (s.trim() ? `**${escape(s)}**` : escape(s)),
  link: (label, url) => `[${escape(label)}](${url})`,
  bold: (s) => `**${s}**`,
};

/** Teams refuses messages over about 28 KB; the text stays well under it. */
export const TEAMS_TEXT_MAX = 12_000;
export const ADAPTIVE_CARD_VERSION = '1.4';

export function teamsPayload(message: PreparedMessage) {
  const text = message.body !== undefined ? escape(message.body) : defaultText(message.vars, CARD_MARKDOWN);
  const link = message.vars.digest ? undefined : message.vars.alerts[0]?.links.capture;
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: ADAPTIVE_CARD_VERSION,
          body: [
            { type: 'TextBlock', text: escape(message.title), weight: 'Bolder', size: 'Medium', wrap: true },
            // One TextBlock per paragraph: Adaptive Cards keep line breaks only between blocks reliably.
            ...cut(text, TEAMS_TEXT_MAX)
              .split('\n')
              .filter((line) => line.trim())
              .map((line) => ({ type: 'TextBlock', text: line, wrap: true, spacing: 'Small' })),
            ...(message.publicImage
              ? [{ type: 'Image', url: message.publicImage, altText: `The capture of ${message.title}` }]
              : []),
          ],
          ...(link && { actions: [{ type: 'Action.OpenUrl', title: 'See the capture', url: link }] }),
        },
      },
    ],
  };
}

export function sendTeams(deps: ChannelDeliveryDeps, message: PreparedMessage): Promise<SendResult> {
  return sendRequest(deps.egress, message.channel.settings.url ?? '', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(teamsPayload(message)),
    timeoutMs: deps.timeoutMs,
    describeRefusal: true,
  });
}
