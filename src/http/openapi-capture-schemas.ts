// The hand-written OpenAPI schemas of a monitor's captures: a capture as the API answers it and the
// capture event webhooks carry, with their changed regions, text changes and notifyWhen results. Apart
// from openapi-schemas.ts because they are the largest group; RESPONSE_SCHEMAS includes them in place.
import type { JsonSchema } from './openapi-schemas.js';
import { box, codeAndMessage, int, nullableStr, obj, str, time, url } from './openapi-schema-kit.js';

const region: JsonSchema = obj(
  {
    x: int(),
    y: int(),
    width: int(),
    height: int(),
    pixels: int('Changed pixels counted in it'),
    elements: {
      type: 'array',
      description: 'Up to 5 elements the region overlaps, the largest overlap first',
      items: obj(
        {
          selector: str('A short CSS selector, unique on the page when captured'),
          tag: str(),
          before: nullableStr('Its text in the baseline; null when absent there'),
          after: nullableStr('Its text now; null when gone'),
        },
        ['selector', 'tag', 'before', 'after'],
      ),
    },
  },
  ['x', 'y', 'width', 'height'],
);

const textChange: JsonSchema = obj(
  {
    kind: { type: 'string', enum: ['added', 'removed', 'changed'] },
    before: nullableStr(),
    after: nullableStr(),
    box: {
      anyOf: [box, { type: 'null' }],
      description: 'Where the block is now (in the baseline for a removed one), image pixels',
    },
    selector: nullableStr(),
    words: {
      type: 'array',
      description: 'Changed blocks: the word-level diff, in order',
      items: obj({ value: str(), added: { type: 'boolean' }, removed: { type: 'boolean' } }, ['value']),
    },
  },
  ['kind', 'before', 'after', 'box', 'selector'],
);

/** The fields a succeeded capture (and its events) carries about text and notifyWhen. */
const textAndConditions: Record<string, JsonSchema> = {
  textChanges: {
    type: 'array',
    items: textChange,
    description: 'Text blocks added, removed or changed since the baseline, in reading order, at most 50',
  },
  textChangesTotal: int('All text changes found, including those past the 50 kept'),
  conditions: {
    type: 'array',
    description: 'Each notifyWhen rule as this capture found it',
    items: obj(
      {
        index: int(),
        selector: str(),
        test: str("The rule's test: textContains, numberBelow, ..."),
        met: { type: 'boolean' },
        value: {
          type: ['string', 'number', 'null'],
          description: 'The text read or the number parsed; null when nothing matched',
        },
      },
      ['index', 'selector', 'test', 'met', 'value'],
    ),
  },
  conditionErrors: {
    type: 'array',
    items: str(),
    description: 'Why a rule could not be read (e.g. its selector matched nothing)',
  },
  conditionsMet: {
    type: ['boolean', 'null'],
    description: 'Every rule true and one newly so; null without rules. monitor.changed is sent only when not false',
  },
};

/** Capture and CaptureEvent, in the order RESPONSE_SCHEMAS lists them. */
export const CAPTURE_SCHEMAS: Record<string, JsonSchema> = {
  Capture: obj(
    {
      id: str(),
      monitorId: str(),
      status: { type: 'string', enum: ['succeeded', 'failed'] },
      reason: { type: 'string', enum: ['schedule', 'manual', 'catch-up'] },
      takenAt: time(),
      durationMs: int(),
      width: { type: ['integer', 'null'] },
      height: { type: ['integer', 'null'] },
      changed: { type: 'boolean', description: 'false for a baseline' },
      confirmed: { type: 'boolean', description: 'A change seen again by the confirming capture' },
      diffPixels: int('Counted pixels of the reported regions (0 exactly when regions is empty)'),
      diffRatio: { type: 'number', description: 'diffPixels / compared pixels (ignored pixels excluded)' },
      regions: { type: 'array', items: region, description: 'Changed areas that count, image pixels, at most 10' },
      baselineId: { type: ['string', 'null'], description: 'The capture compared with; null for a new baseline' },
      imageUrl: url('PNG; needs the key'),
      diffUrl: url('PNG with the counted changes in red and each region outlined; only when there is a region'),
      truncated: { type: 'boolean' },
      error: codeAndMessage,
      summary: {
        type: ['string', 'null'],
        description: 'One line for a person about the text changes, e.g. "Price: $24.99 → $19.99"; null without one',
      },
      ...textAndConditions,
    },
    ['id', 'monitorId', 'status', 'reason', 'takenAt'],
  ),

  CaptureEvent: obj(
    {
      monitorId: str(),
      captureId: str(),
      url: url('The monitored page'),
      status: { type: 'string', enum: ['succeeded', 'failed'] },
      reason: { type: 'string', enum: ['schedule', 'manual', 'catch-up'] },
      takenAt: time(),
      changed: { type: 'boolean' },
      baselineId: { type: ['string', 'null'] },
      diffPixels: int(),
      diffRatio: { type: 'number' },
      regions: { type: 'array', items: region },
      summary: {
        type: ['string', 'null'],
        description: 'One line for a person, e.g. "Price: $24.99 → $19.99"; null without a text change',
      },
      ...textAndConditions,
      textChanges: {
        type: 'array',
        items: textChange,
        description: 'The first 10 text changes (the capture keeps up to 50)',
      },
      imageUrl: url(),
      diffUrl: url(),
      baselineImageUrl: url(),
      error: codeAndMessage,
    },
    ['monitorId', 'captureId', 'url', 'status', 'reason', 'takenAt'],
    {
      description:
        '`data` of monitor.changed, capture.completed and capture.failed (a failed capture carries error ' +
        'instead of the figures)',
    },
  ),

  TestEvent: obj(
    {
      monitorId: str(),
      name: str("The monitor's name"),
      url: url('The monitored page'),
      test: { const: true },
      message: str('Says that this is a test and that no capture was taken'),
    },
    ['monitorId', 'name', 'url', 'test', 'message'],
    { description: '`data` of monitor.test (POST /api/monitors/{id}/test-webhook)' },
  ),
};
