// ntfy channels: publish to the topic's URL (https://docs.ntfy.sh/publish/). The message is the request
// body and the title, tags, priority and click link are query parameters, which ntfy takes in place of its
// X-Title/X-Tags/X-Priority/X-Click headers (https://docs.ntfy.sh/publish/#list-of-all-parameters; a
// query parameter carries any UTF-8 text, which a header cannot). With a crop, the documented way to attach
// a local file is used instead: PUT the PNG as the body, `filename=crop.png`, and the text as `message`
// (https://docs.ntfy.sh/publish/#attach-local-file). An access token goes in `Authorization: Bearer`.
import type { SendResult } from '../webhooks/send.js';
import { sendRequest } from '../webhooks/send.js';
import type { ChannelDeliveryDeps, PreparedMessage } from './deliver.js';
import { defaultText, PLAIN } from './message-text.js';

/** ntfy keeps messages up to 4096 bytes as text (longer ones become an attachment); we stay under it. */
export const NTFY_MESSAGE_MAX_BYTES = 4000;

/** `s` cut to at most `max` UTF-8 bytes, whole characters only. */
function cutBytes(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(out + ch) > max - 3) break;
    out += ch;
  }
  return `${out}…`;
}

function priorityAndTags(message: PreparedMessage): { priority: string; tags: string } {
  const events = message.vars.alerts.map((a) => a.event);
  if (events.some((e) => e === 'capture.failed' || e === 'monitor.filter_missing'))
    return { priority: '4', tags: 'warning' };
  if (events.includes('monitor.changed')) return { priority: '4', tags: 'mag' };
  return { priority: '3', tags: 'information_source' };
}

/** The URL and body of the publish request: text, or the crop with the text as `message`. */
export function ntfyRequest(message: PreparedMessage, topicUrl: string, crop: Buffer | undefined) {
  const text = cutBytes(message.body ?? defaultText(message.vars, PLAIN), NTFY_MESSAGE_MAX_BYTES);
  const url = new URL(topicUrl);
  const { priority, tags } = priorityAndTags(message);
  url.searchParams.set('title', message.title);
  url.searchParams.set('priority', priority);
  url.searchParams.set('tags', tags);
  const link = message.vars.digest ? undefined : message.vars.alerts[0]?.links.capture;
  if (link) url.searchParams.set('click', link);
  if (!crop) return { method: 'POST' as const, url: url.href, body: text, contentType: 'text/plain; charset=utf-8' };
  url.searchParams.set('filename', 'crop.png');
  url.searchParams.set('message', text);
  return { method: 'PUT' as const, url: url.href, body: crop, contentType: 'image/png' };
}

export async function sendNtfy(deps: ChannelDeliveryDeps, message: PreparedMessage): Promise<SendResult> {
  const first = (await message.crops())[0]?.crops[0];
  const request = ntfyRequest(message, message.channel.settings.url ?? '', first?.after ?? first?.before);
  const token = message.channel.settings.token;
  return sendRequest(deps.egress, request.url, {
    method: request.method,
    headers: { 'content-type': request.contentType, ...(token && { authorization: `Bearer ${token}` }) },
    body: request.body,
    timeoutMs: deps.timeoutMs,
    describeRefusal: true,
  });
}
