// JSON webhook channels: a POST of JSON to the channel's URL, with the channel's own headers. The body is
// the body template's output, which must be valid JSON (else the attempt fails, saying where the JSON
// breaks); without a template, `{event, alerts:[…]}` with each alert's template variables. Unsigned: the
// signed Standard Webhooks delivery is the monitor's `webhookUrl`, unchanged.
import type { SendResult } from '../webhooks/send.js';
import { sendRequest } from '../webhooks/send.js';
import type { ChannelDeliveryDeps, PreparedMessage } from './deliver.js';
import { renderTemplate, TemplateError } from './templates.js';

/** Headers the channel may not set: the request's framing is ours. */
const RESERVED = new Set(['content-length', 'host', 'transfer-encoding', 'connection']);

/** The request body, or the reason there is none. */
export async function webhookBody(message: PreparedMessage): Promise<{ body: string } | { error: string }> {
  const template = message.channel.settings.templates?.body;
  if (!template) return { body: JSON.stringify({ event: message.vars.event, alerts: message.vars.alerts }) };
  let output: string;
  try {
    output = await renderTemplate('body', template, { ...message.vars });
  } catch (err) {
    if (err instanceof TemplateError) return { error: err.message };
    throw err;
  }
  try {
    JSON.parse(output);
  } catch (err) {
    return { error: `body template: its output is not valid JSON (${(err as Error).message})` };
  }
  return { body: output };
}

export async function sendJsonWebhook(deps: ChannelDeliveryDeps, message: PreparedMessage): Promise<SendResult> {
  const started = performance.now();
  const made = await webhookBody(message);
  if ('error' in made)
    return {
      ok: false,
      gone: false,
      blocked: false,
      error: made.error,
      durationMs: Math.round(performance.now() - started),
    };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.channel.settings.headers ?? {}))
    if (!RESERVED.has(name.toLowerCase())) headers[name] = value;
  headers['content-type'] = 'application/json';
  return sendRequest(deps.egress, message.channel.settings.url ?? '', {
    headers,
    body: made.body,
    timeoutMs: deps.timeoutMs,
    describeRefusal: true,
  });
}
