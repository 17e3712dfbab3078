// Discord channels: Execute Webhook (https://discord.com/developers/docs/resources/webhook#execute-webhook)
// takes JSON, or multipart/form-data with the JSON in `payload_json` and files as `files[n]`. The message is
// one embed (title ≤ 256, description ≤ 4096 characters: https://discord.com/developers/docs/resources/message#embed-object-embed-limits);
// the first crop (the "after" side of the first changed region) is uploaded as `files[0]` named crop.png and
// shown in the embed with `attachment://crop.png`, declared in `attachments` as the docs describe
// (https://discord.com/developers/docs/reference#uploading-files). Without a crop the request is plain JSON.
import type { SendResult } from '../webhooks/send.js';
import { sendRequest } from '../webhooks/send.js';
import type { ChannelDeliveryDeps, PreparedMessage } from './deliver.js';
import { cut, defaultText, type Markup } from './message-text.js';

/** Discord's markdown: characters that would format are escaped with a backslash. */
const escape = (s: string) => s.replace(/([\\*_~`|>#[\]()-])/g, '\\$1');

const MARKDOWN: Markup = {
  text: escape,
  removed: (s) => (s.trim() ? `~~${escape(s)}~~` : escape(s)),
  added: (s) => (s.trim() ? `**${escape(s)}**` : escape(s)),
  link: (label, url) => `[${escape(label)}](${url.replace(/[()\s]/g, encodeURIComponent)})`,
  bold: (s) => `**${s}**`,
};

export const DISCORD_TITLE_MAX = 256;
export const DISCORD_DESCRIPTION_MAX = 4096;
export const CROP_FILENAME = 'crop.png';

/** Orange for a change, red for a failure, grey otherwise. */
function colour(message: PreparedMessage): number {
  const events = message.vars.alerts.map((a) => a.event);
  if (events.some((e) => e === 'capture.failed' || e === 'monitor.filter_missing')) return 0xd93025;
  if (events.includes('monitor.changed')) return 0xf29900;
  return 0x5f6368;
}

export function discordPayload(message: PreparedMessage, withCrop: boolean) {
  const text = message.body !== undefined ? message.body : defaultText(message.vars, MARKDOWN);
  const link = message.vars.digest ? undefined : message.vars.alerts[0]?.links.capture;
  return {
    // No @everyone or role pings from page text.
    allowed_mentions: { parse: [] as string[] },
    embeds: [
      {
        title: cut(message.title, DISCORD_TITLE_MAX),
        description: cut(text, DISCORD_DESCRIPTION_MAX),
        color: colour(message),
        timestamp: message.vars.alerts.at(-1)?.timestamp,
        ...(link && { url: link }),
        ...(withCrop && { image: { url: `attachment://${CROP_FILENAME}` } }),
      },
    ],
    ...(withCrop && { attachments: [{ id: 0, filename: CROP_FILENAME, description: 'The changed region' }] }),
  };
}

export async function sendDiscord(deps: ChannelDeliveryDeps, message: PreparedMessage): Promise<SendResult> {
  const url = message.channel.settings.url ?? '';
  const first = (await message.crops())[0]?.crops[0];
  const crop = first?.after ?? first?.before;
  if (!crop) {
    return sendRequest(deps.egress, url, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(discordPayload(message, false)),
      timeoutMs: deps.timeoutMs,
      describeRefusal: true,
    });
  }
  // The platform's FormData writes the multipart body (boundary and part headers) for us.
  const form = new FormData();
  form.append('payload_json', JSON.stringify(discordPayload(message, true)));
  form.append('files[0]', new Blob([new Uint8Array(crop)], { type: 'image/png' }), CROP_FILENAME);
  const encoded = new Response(form);
  return sendRequest(deps.egress, url, {
    headers: { 'content-type': encoded.headers.get('content-type') ?? 'multipart/form-data' },
    body: Buffer.from(await encoded.arrayBuffer()),
    timeoutMs: deps.timeoutMs,
    describeRefusal: true,
  });
}
