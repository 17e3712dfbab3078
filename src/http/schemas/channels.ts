// Channel bodies and answers: the wire format of a channel's settings (src/domain/channels.ts). A PATCH
// is merged into the channel as shown (JSON Merge Patch) and the result validated by the same schema as
// a create, so the rules are written once.
import { z } from 'zod';
import { checkTemplate } from '../../channels/deliver.js';
import { CHANNEL_TYPES, DIGEST_MODES, type ChannelSettings } from '../../domain/channels.js';
import { headerRecord, httpUrl, WEBHOOK_NO_CREDENTIALS } from './request-options.js';
import { MAX_CREDENTIAL_CHARS, MAX_NAME_CHARS, MAX_URL_CHARS } from './string-caps.js';
import type { Documents, Holds, SameKeys } from './type-checks.js';
import { dateTime } from './responses/common.js';
import type { ChannelView } from '../../channels/stored.js';

/** At most this many recipients of an email channel. */
export const MAX_RECIPIENTS = 20;
/** At most this many extra headers of a webhook channel. */
export const MAX_CHANNEL_HEADERS = 20;
/** A subject template's and a body template's longest source. */
export const MAX_SUBJECT_TEMPLATE_CHARS = 1000;
export const MAX_BODY_TEMPLATE_CHARS = 20_000;

const clock = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'a time of day as "HH:MM" (24 h), e.g. "09:00"');

const template = (max: number) => z.string().max(max);

export const channelSchema = z
  .object({
    name: z.string().trim().min(1).max(MAX_NAME_CHARS),
    type: z.enum(CHANNEL_TYPES).describe('Where the alerts go'),
    to: z
      .array(z.email().max(254))
      .min(1)
      .max(MAX_RECIPIENTS)
      .optional()
      .describe(`email: the recipients (1–${MAX_RECIPIENTS})`),
    url: httpUrl('url', WEBHOOK_NO_CREDENTIALS)
      .optional()
      .describe(
        'slack, discord, teams, webhook: the incoming-webhook URL; ntfy: the topic URL. Write-only: shown as its ' +
          'origin and "/••••"; sent back as shown, it keeps the stored one',
      ),
    token: z
      .string()
      .min(1)
      .max(MAX_CREDENTIAL_CHARS)
      .optional()
      .describe('ntfy: an access token, sent as a Bearer token. Write-only ("••••")'),
    headers: headerRecord
      .refine((h) => Object.keys(h).length <= MAX_CHANNEL_HEADERS, `at most ${MAX_CHANNEL_HEADERS} headers`)
      .optional()
      .describe('webhook: extra request headers; values write-only ("••••")'),
    templates: z
      .object({
        subject: template(MAX_SUBJECT_TEMPLATE_CHARS).optional().describe('Liquid: the subject, title or heading'),
        body: template(MAX_BODY_TEMPLATE_CHARS).optional().describe('Liquid: the message (webhook: the JSON body)'),
      })
      .strict()
      .prefault({})
      .superRefine((templates, ctx) => {
        for (const part of ['subject', 'body'] as const) {
          const source = templates[part];
          const problem = source === undefined ? undefined : checkTemplate(source);
          if (problem)
            ctx.addIssue({ code: 'custom', path: [part], message: `line ${problem.line}: ${problem.message}` });
        }
      })
      .describe("Absent: the type's own message"),
    digest: z
      .enum(DIGEST_MODES)
      .default('off')
      .describe('"off": each alert at once; "hourly": on the hour; "daily": at digestAt, in the monitor time zone'),
    digestAt: clock.default('09:00').describe('Daily digests: the time of day, in the time zone of the monitor'),
    quietHours: z
      .object({ start: clock, end: clock })
      .strict()
      .refine((q) => q.start !== q.end, { message: 'start and end must differ', path: ['end'] })
      .optional()
      .describe('Alerts are held from start until end (end before start spans midnight), in the monitor time zone'),
    default: z.boolean().default(false).describe('Alerts every monitor of the key that lists no channels of its own'),
  })
  .strict()
  .superRefine((c, ctx) => {
    const refuse = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (c.type === 'email') {
      if (!c.to) refuse('to', 'an email channel needs its recipients');
      if (c.url !== undefined) refuse('url', 'an email channel has no url: it is sent by the SMTP settings');
    } else {
      if (c.url === undefined) refuse('url', `a ${c.type} channel needs its url`);
      if (c.to) refuse('to', `only email channels have recipients`);
    }
    if (c.token !== undefined && c.type !== 'ntfy') refuse('token', 'only ntfy channels take a token');
    if (c.headers !== undefined && c.type !== 'webhook') refuse('headers', 'only webhook channels take headers');
    if (c.url !== undefined && c.url.length > MAX_URL_CHARS) refuse('url', 'too long');
  });

/** What the schema produces is a channel's settings as the domain defines them, field for field. */
type Produces<T extends ChannelSettings> = T;
export type ChannelBody = Produces<z.output<typeof channelSchema>>;
export type ChannelBodyFields = Holds<SameKeys<ChannelBody, ChannelSettings>>;

/** A channel as the API answers it. */
export const channel = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(CHANNEL_TYPES),
    to: z.array(z.string()).optional(),
    url: z.string().optional().describe('The origin and "/••••": the url is write-only'),
    token: z.string().optional().describe('"••••" when a token is kept'),
    headers: z.record(z.string(), z.string()).optional().describe('Header names; values are write-only'),
    templates: z.object({ subject: z.string().optional(), body: z.string().optional() }),
    digest: z.enum(DIGEST_MODES),
    digestAt: z.string(),
    quietHours: z.object({ start: z.string(), end: z.string() }).optional(),
    default: z.boolean(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  })
  .describe('A channel: its settings, write-only parts masked');

export const channelList = z.object({ channels: z.array(channel).describe('Newest first') });

export type ChannelDocumented = Holds<Documents<ChannelView, typeof channel>>;
