// Monitor bodies: the wire format of a monitor's settings (src/monitors/settings.ts). A PATCH is merged
// into the stored monitor (JSON Merge Patch) and the result validated by the same schema as a create, so
// the rules are written once.
import { REDUCED_MOTIONS } from '../../domain/render-spec.js';
import cron from 'node-cron';
import { z } from 'zod';
import { ignoreTextProblem } from '../../diff/text/ignore-text.js';
import { shortestGapSeconds } from '../../monitors/schedule-gap.js';
import { DIFF_MODES } from '../../domain/diff-mode.js';
import {
  NOTIFY_EVENTS,
  REQUEST_METHODS,
  type CaptureOptions,
  type DiffOptions,
  type MonitorSettings,
} from '../../domain/monitor-settings.js';
import { notifyWhenSchema } from './conditions.js';
import { filtersSchema } from './filters.js';
import { imageSizeRules } from './image-size.js';
import {
  httpUrl,
  WEBHOOK_NO_CREDENTIALS,
  imageOptions,
  oneCaptureMode,
  oneMainStatusRule,
  pageOptions,
  validTimeZone,
  type SchemaLimits,
} from './request-options.js';
import { stepsFitTimeout, stepsSchema } from './steps.js';
import { loggedInWhenSchema, savedLoginRules } from './saved-login.js';
import type { Holds, SameKeys } from './type-checks.js';
import { MAX_TAG_CHARS, MAX_TAGS, tagKey } from '../../domain/tags.js';
import {
  MAX_CRON_CHARS,
  MAX_MEDIA_TYPE_CHARS,
  MAX_NAME_CHARS,
  MAX_REQUEST_BODY_CHARS,
  MAX_PATTERN_CHARS,
  MAX_SELECTOR_CHARS,
  MAX_TIME_ZONE_CHARS,
} from './string-caps.js';

/** How many channels one monitor may list. */
export const MAX_MONITOR_CHANNELS = 20;
const MAX_CHANNEL_ID_CHARS = 64;

export { mergePatch } from '../../domain/monitor-settings.js';

const box = z
  .object({
    x: z.number().int().min(0),
    y: z.number().int().min(0),
    width: z.number().int().min(1),
    height: z.number().int().min(1),
  })
  .strict();

const CRON_FIELD_RANGES: Record<string, string> = {
  second: '0-59',
  minute: '0-59',
  hour: '0-23',
  dayOfMonth: '1-31',
  month: '1-12 or jan-dec',
  dayOfWeek: '0-7 or sun-sat',
};

/**
 * A 5- or 6-field cron expression; each problem is reported with the field it is in. A valid one
 * must not run more often than every `minIntervalSeconds`: one key must not take the whole machine.
 */
const cronExpression = (minIntervalSeconds: number) =>
  z
    .string()
    .max(MAX_CRON_CHARS)
    .superRefine((value, ctx) => {
      const { errors } = cron.validateDetailed(value);
      for (const e of errors) {
        const range = CRON_FIELD_RANGES[e.field];
        ctx.addIssue({
          code: 'custom',
          message: range
            ? `the ${e.field} field "${e.value}" is not valid (allowed: ${range}, *, lists, ranges and steps)`
            : `${e.message} (e.g. "*/15 * * * *")`,
        });
      }
      if (errors.length > 0) return;
      const gap = shortestGapSeconds(value, minIntervalSeconds);
      if (gap < minIntervalSeconds) {
        ctx.addIssue({
          code: 'custom',
          message:
            `runs as little as ${gap} s apart; the minimum is ${minIntervalSeconds} s between runs ` +
            `(monitors.minIntervalSeconds)`,
        });
      }
    });

/** The image options a capture takes: a render request without its source, output and async fields. */
export function captureOptionsSchema(limits: SchemaLimits) {
  const sizeRules = imageSizeRules(limits);
  return z
    .object({ ...pageOptions(limits), ...imageOptions() })
    .omit({
      url: true,
      html: true,
      baseUrl: true,
      filename: true,
      response: true,
      async: true,
      webhookUrl: true,
      format: true,
      quality: true,
    })
    .extend({
      // Motion that respects the preference stops, so a carousel does not read as a change.
      reducedMotion: z.enum(REDUCED_MOTIONS).default('reduce').describe('Default "reduce" for monitors'),
      steps: stepsSchema,
      method: z.enum(REQUEST_METHODS).optional().describe("The request's method (default GET)"),
      body: z
        .string()
        .max(MAX_REQUEST_BODY_CHARS)
        .optional()
        .describe('POST and PUT: the request body; write-only (stored sealed, shown as "••••")'),
      bodyContentType: z
        .string()
        .min(1)
        .max(MAX_MEDIA_TYPE_CHARS)
        .optional()
        .describe("The body's Content-Type (default: application/json when the body is JSON, else text/plain)"),
      saveLogin: z
        .boolean()
        .default(false)
        .describe(
          'Keep the browser state (cookies and localStorage of the monitored origins) the steps signed in with, ' +
            'sealed, and start later captures from it; the steps run again only when loggedInWhen no longer holds. ' +
            'Needs steps and loggedInWhen',
        ),
      loggedInWhen: loggedInWhenSchema.optional(),
    })
    .strict()
    .superRefine((value, ctx) => {
      oneCaptureMode(value, ctx);
      oneMainStatusRule(value, ctx);
      sizeRules(value, ctx);
      stepsFitTimeout(value, ctx);
      savedLoginRules(value, ctx);
      if (value.body !== undefined && (value.method ?? 'GET') === 'GET') {
        ctx.addIssue({
          code: 'custom',
          path: ['body'],
          message: 'a body is only sent with method POST or PUT; set capture.method, or remove the body',
        });
      }
    });
}

/** The flags of an RE2 pattern: any of "i", "m" and "s", each at most once ("" for none). */
export const patternFlagsSchema = z
  .string()
  .max(3)
  .regex(/^(?!.*(.).*\1)[ims]*$/, 'flags are any of "i", "m" and "s", each at most once')
  .describe('"i": ignore case, "m": ^ and $ match at line ends, "s": . matches a line break; "" for none');

const ignoreTextPattern = z.string().min(1).max(MAX_PATTERN_CHARS);

/**
 * Patterns in diff.ignoreText: each must compile on RE2 (linear time, no lookaround) and match at least one
 * character. A plain string ignores case; `{pattern, flags}` says which flags apply.
 */
export const ignoreTextSchema = z
  .array(
    z
      .union([ignoreTextPattern, z.object({ pattern: ignoreTextPattern, flags: patternFlagsSchema }).strict()])
      .superRefine((entry, ctx) => {
        const plain = typeof entry === 'string';
        const problem = plain ? ignoreTextProblem(entry, 'i') : ignoreTextProblem(entry.pattern, entry.flags);
        if (problem) ctx.addIssue({ code: 'custom', message: problem, path: plain ? [] : ['pattern'] });
      }),
  )
  .max(20)
  .default([])
  .describe(
    'Regular expressions (RE2 syntax: linear time, no lookaround or backreferences) whose matches are blanked ' +
      'before texts are compared, e.g. dates. A plain string ignores case; {"pattern", "flags"} sets the ' +
      'flags ("i", "m", "s"; "" is case-sensitive)',
  );

export const diffOptionsSchema = z
  .object({
    mode: z
      .enum(DIFF_MODES)
      .default('visual')
      .describe(
        'What counts as a change: "visual" (changed regions; text explains), "text" (only a text change), ' +
          '"both" (either)',
      ),
    textSelector: z
      .string()
      .min(1)
      .max(MAX_SELECTOR_CHARS)
      .optional()
      .describe('Compare only the text inside this element (its first match)'),
    ignoreText: ignoreTextSchema,
    threshold: z.number().min(0).max(1).default(0.1).describe('pixelmatch colour threshold, 0..1'),
    includeAA: z
      .boolean()
      .default(false)
      .describe(
        'Strict: every pixel over the threshold counts as a strong difference, none is put down to ' +
          'anti-aliasing or sub-pixel movement',
      ),
    minChangeRatio: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe('Also require diffRatio >= this (0, the default: off)'),
    ignoreRegions: z.array(box).max(100).default([]).describe('Boxes in capture pixels left out of the count'),
    ignoreSelectors: z
      .array(z.string().min(1).max(MAX_SELECTOR_CHARS))
      .max(100)
      .default([])
      .describe('Elements whose boxes are left out of the count'),
    confirm: z.boolean().default(true).describe('Capture again before reporting a change'),
    filters: filtersSchema,
    filterMissingAfter: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(3)
      .describe('After this many filter_missing captures in a row, monitor.filter_missing is sent'),
    priceSelector: z
      .string()
      .min(1)
      .max(MAX_SELECTOR_CHARS)
      .optional()
      .describe("The element holding the product's price (used when the page declares no structured data)"),
    availabilitySelector: z
      .string()
      .min(1)
      .max(MAX_SELECTOR_CHARS)
      .optional()
      .describe('The element saying whether the product is in stock (when no structured data says)'),
  })
  .strict();

/**
 * The WHATWG serialization of a URL (an overwrite, not a transform: the field stays a string in /openapi.json): what every reader of it (browser, fetch, webhooks) would
 * make of it anyway, stored so, so that `<` or a space given raw is stored percent-encoded and the
 * dashboard and answers never show characters the URL parser would not keep.
 */
const serializedUrl = (url: string) => {
  try {
    return new URL(url).href;
  } catch {
    return url; // refused by httpUrl's own check, which names the field
  }
};

/** Channel ids of the key (checked by the service, which knows them); absent: the key's default channels. */
export const monitorChannelsSchema = z
  .array(z.string().min(1).max(MAX_CHANNEL_ID_CHARS))
  .max(MAX_MONITOR_CHANNELS)
  .refine((list) => new Set(list).size === list.length, 'each channel at most once')
  .optional()
  .describe(
    'Channel ids of the same key its alerts also go to, as notify says (at most 20). Absent (or null in a ' +
      "PATCH): the key's default channels; []: none",
  );

/** One tag: trimmed; letters, digits, spaces and - _ . : / (what reads well in a URL's query and a feed). */
export const tagSchema = z
  .string()
  .trim()
  .min(1)
  .max(MAX_TAG_CHARS)
  .regex(/^[\p{L}\p{N} _.:/-]+$/u, 'letters, digits, spaces and - _ . : / only');

export const monitorTagsSchema = z
  .array(tagSchema)
  .max(MAX_TAGS)
  .superRefine((tags, ctx) => {
    const seen = new Set<string>();
    tags.forEach((tag, i) => {
      if (seen.has(tagKey(tag)))
        ctx.addIssue({ code: 'custom', path: [i], message: `"${tag}" is already a tag (tags ignore case)` });
      seen.add(tagKey(tag));
    });
  })
  .default([])
  .describe(
    `Labels to filter and act on monitors by (at most ${MAX_TAGS}, each at most ${MAX_TAG_CHARS} characters); compared without case`,
  );

export function monitorSchema(limits: SchemaLimits & { maxRetention: number; minIntervalSeconds: number }) {
  return z
    .object({
      name: z.string().trim().min(1).max(MAX_NAME_CHARS).optional().describe('Default: the url'),
      url: httpUrl('url', 'give them as capture.httpCredentials, where the password is write-only')
        .overwrite(serializedUrl)
        .describe('The page (or document) to watch; stored as the URL parser writes it (e.g. spaces as %20)'),
      schedule: cronExpression(limits.minIntervalSeconds).describe(
        'Cron expression, 5 fields (minute first) or 6 (second first)',
      ),
      timezone: z
        .string()
        .max(MAX_TIME_ZONE_CHARS)
        .refine(validTimeZone, 'an IANA time zone such as "Europe/Paris"')
        .default('UTC'),
      paused: z.boolean().default(false),
      capture: captureOptionsSchema(limits).prefault({}),
      diff: diffOptionsSchema.prefault({}),
      notifyWhen: notifyWhenSchema,
      notify: z
        .array(z.enum(NOTIFY_EVENTS))
        .max(NOTIFY_EVENTS.length)
        .refine((list) => new Set(list).size === list.length, 'each event at most once')
        .default(['change', 'failure']),
      webhookUrl: httpUrl('webhookUrl', WEBHOOK_NO_CREDENTIALS)
        .overwrite(serializedUrl)
        .optional()
        .describe('Told of changes and captures, as notify says'),
      channels: monitorChannelsSchema,
      tags: monitorTagsSchema,
      retention: z
        .object({ keep: z.number().int().min(1).max(limits.maxRetention).default(100) })
        .strict()
        .prefault({}),
    })
    .strict();
}

/**
 * What the schema produces must be a monitor's settings as the domain defines them, field for field
 * (compile-time checks: a field the schema adds must be added to the domain type too).
 */
type Produces<T extends MonitorSettings> = T;
export type MonitorBody = Produces<z.output<ReturnType<typeof monitorSchema>>>;
export type MonitorBodyFields = [
  Holds<SameKeys<MonitorBody, MonitorSettings>>,
  Holds<SameKeys<MonitorBody['capture'], CaptureOptions>>,
  Holds<SameKeys<MonitorBody['diff'], DiffOptions>>,
];
