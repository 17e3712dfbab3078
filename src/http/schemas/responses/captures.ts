// A monitor's captures: a capture as the API answers it and as the capture events carry it, with its
// changed regions, text changes and notifyWhen results, and the data of monitor.test.
import { z } from 'zod';
import { CAPTURE_REASONS, CAPTURE_STATUSES } from '../../../domain/capture-findings.js';
import { CONTENT_KINDS } from '../../../domain/content.js';
import { AVAILABILITIES, PRODUCT_SOURCES } from '../../../domain/product.js';
import { LOGIN_OUTCOMES } from '../../../domain/saved-login.js';
import type { CaptureView } from '../../../monitors/view.js';
import type { Documents, Holds } from '../type-checks.js';
import { box, codeAndMessage, dateTime } from './common.js';

const region = z.object({
  x: z.int(),
  y: z.int(),
  width: z.int(),
  height: z.int(),
  pixels: z.int().optional().describe('Changed pixels counted in it'),
  elements: z
    .array(
      z.object({
        selector: z.string().describe('A short CSS selector, unique on the page when captured'),
        tag: z.string(),
        before: z.string().nullable().describe('Its text in the baseline; null when absent there'),
        after: z.string().nullable().describe('Its text now; null when gone'),
      }),
    )
    .optional()
    .describe('Up to 5 elements the region overlaps, the largest overlap first'),
});

const textChange = z.object({
  kind: z.enum(['added', 'removed', 'changed']),
  before: z.string().nullable(),
  after: z.string().nullable(),
  box: box.nullable().describe('Where the block is now (in the baseline for a removed one), image pixels'),
  selector: z.string().nullable(),
  words: z
    .array(z.object({ value: z.string(), added: z.boolean().optional(), removed: z.boolean().optional() }))
    .optional()
    .describe('Changed blocks: the word-level diff, in order'),
});

const contentAndProduct = {
  content: z
    .object({
      kind: z.enum(CONTENT_KINDS).describe('What the URL served, by its type and first bytes'),
      mediaType: z.string().nullable().describe('The media type the server sent (lower case, no parameters)'),
      bytes: z.int().nullable().describe('Bytes read (null for html: the browser read it)'),
      pages: z.int().optional().describe("pdf: the document's page count"),
      pagesRead: z.int().optional().describe('pdf: pages read (fewer than pages when a limit cut it)'),
      cut: z.string().optional().describe('Why only part was read (a byte or page limit)'),
      sha256: z.string().optional().describe('binary: SHA-256 of the bytes read, hex'),
    })
    .optional()
    .describe('What the URL served; absent on captures taken before content types were read (html)'),
  price: z.number().nullable().optional().describe("The product's price, when the page declares one"),
  currency: z.string().nullable().optional().describe('ISO 4217 code, when the page says one'),
  availability: z.enum(AVAILABILITIES).nullable().optional().describe('schema.org ItemAvailability'),
  priceSource: z.enum(PRODUCT_SOURCES).optional().describe('Where price and availability were read'),
};

/** The fields a succeeded capture (and its events) carries about text and notifyWhen. */
const textAndConditions = {
  textChanges: z
    .array(textChange)
    .optional()
    .describe('Text blocks added, removed or changed since the baseline, in reading order, at most 50'),
  textChangesTotal: z.int().optional().describe('All text changes found, including those past the 50 kept'),
  conditions: z
    .array(
      z.object({
        index: z.int().describe('The rule among all rules, counted depth first through groups from 0'),
        path: z.string().describe('Where the rule is in notifyWhen, e.g. "1" or "1.any.0"'),
        selector: z.string().nullable().describe('The element read; null for the price rules'),
        test: z.string().describe("The rule's test: textContains, numberBelow, priceBelow, ..."),
        met: z.boolean(),
        value: z
          .union([z.string(), z.number(), z.null()])
          .describe('The text read, the number parsed, the price or the availability; null when nothing was read'),
        while: z.literal(true).optional().describe('A while rule: it only had to hold'),
      }),
    )
    .optional()
    .describe('Each notifyWhen rule as this capture found it, depth first through groups'),
  conditionErrors: z
    .array(z.string())
    .optional()
    .describe('Why a rule could not be read (e.g. its selector matched nothing)'),
  conditionsMet: z
    .boolean()
    .nullable()
    .optional()
    .describe('Every rule true and one newly so; null without rules. monitor.changed is sent only when not false'),
};

export const capture = z.object({
  id: z.string(),
  monitorId: z.string(),
  status: z.enum(CAPTURE_STATUSES),
  reason: z.enum(CAPTURE_REASONS),
  takenAt: dateTime(),
  durationMs: z.int().optional(),
  width: z.int().nullable().optional(),
  height: z.int().nullable().optional(),
  changed: z.boolean().optional().describe('false for a baseline'),
  confirmed: z.boolean().optional().describe('A change seen again by the confirming capture'),
  diffPixels: z.int().optional().describe('Counted pixels of the reported regions (0 exactly when regions is empty)'),
  diffRatio: z.number().optional().describe('diffPixels / compared pixels (ignored pixels excluded)'),
  regions: z.array(region).optional().describe('Changed areas that count, image pixels, at most 10'),
  baselineId: z
    .string()
    .nullable()
    .optional()
    .describe('The capture compared with; null for a new baseline and for a suspect capture (never compared)'),
  imageUrl: z.url().optional().describe('PNG; needs the key'),
  diffUrl: z
    .url()
    .optional()
    .describe('PNG with the counted changes in red and each region outlined; only when there is a region'),
  truncated: z.boolean().optional(),
  error: codeAndMessage
    .optional()
    .describe('Why a failed capture failed, or why a suspect one (a bot check, an empty page...) was not compared'),
  summary: z
    .string()
    .nullable()
    .optional()
    .describe('One line for a person about the text changes, e.g. "Price: $24.99 → $19.99"; null without one'),
  login: z
    .enum(LOGIN_OUTCOMES)
    .optional()
    .describe(
      'What the capture did with the saved login (capture.saveLogin): saved (the steps ran and their state was ' +
        'kept), reused (it started signed in; the steps were skipped), expired (the saved login was past ' +
        'monitors.loginTtlHours; the steps ran again), refused (the state was too large to keep)',
    ),
  ...textAndConditions,
  ...contentAndProduct,
});
export type CaptureDocumented = Holds<Documents<CaptureView, typeof capture>>;

/** GET /api/captures/{id}/text: the capture's text blocks as compared (after the monitor's filters). */
export const captureText = z.object({
  blocks: z
    .array(
      z.object({
        selector: z.string().describe('A short CSS selector, unique on the page when captured ("page 3" in a PDF)'),
        tag: z.string().describe('Lower-case tag name'),
        text: z.string().describe('Its text, whitespace collapsed'),
        box: box.describe('Where it is, in image pixels of this capture'),
      }),
    )
    .describe('In reading order'),
});

export const captureEvent = z
  .object({
    monitorId: z.string(),
    captureId: z.string(),
    url: z.url().describe('The monitored page'),
    status: z.enum(CAPTURE_STATUSES),
    reason: z.enum(CAPTURE_REASONS),
    takenAt: dateTime(),
    changed: z.boolean().optional(),
    baselineId: z.string().nullable().optional(),
    diffPixels: z.int().optional(),
    diffRatio: z.number().optional(),
    regions: z.array(region).optional(),
    summary: z
      .string()
      .nullable()
      .optional()
      .describe('One line for a person, e.g. "Price: $24.99 → $19.99"; null without a text change'),
    ...textAndConditions,
    ...contentAndProduct,
    textChanges: z.array(textChange).optional().describe('The first 10 text changes (the capture keeps up to 50)'),
    imageUrl: z.url().optional(),
    diffUrl: z.url().optional(),
    baselineImageUrl: z.url().optional(),
    error: codeAndMessage.optional(),
  })
  .describe(
    '`data` of monitor.changed, capture.completed and capture.failed (a failed capture carries error ' +
      'instead of the figures; a suspect one, sent as capture.failed, carries error and its figures)',
  );

export const filterMissingEvent = z
  .object({
    monitorId: z.string(),
    captureId: z.string().describe('The capture that made the streak reach diff.filterMissingAfter'),
    url: z.url().describe('The monitored page'),
    status: z.literal('filter_missing'),
    reason: z.enum(CAPTURE_REASONS),
    takenAt: dateTime(),
    error: codeAndMessage.describe('code "filter_missing"; the message names each filter that matched nothing'),
    missingCount: z.int().describe('How many captures in a row were filter_missing (diff.filterMissingAfter)'),
  })
  .describe(
    '`data` of monitor.filter_missing: sent once when diff.filterMissingAfter captures in a row were filter_missing',
  );

export const testEvent = z
  .object({
    monitorId: z.string(),
    name: z.string().describe("The monitor's name"),
    url: z.url().describe('The monitored page'),
    test: z.literal(true),
    message: z.string().describe('Says that this is a test and that no capture was taken'),
  })
  .describe('`data` of monitor.test (POST /api/monitors/{id}/test-webhook)');
