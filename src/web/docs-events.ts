// The example body of each webhook event on /docs (docs/overview.md says what each is for). The bodies
// are made by the functions that make the real events (captureEventData, testEventData, jobEventData and
// eventBody) from sample records, so an example cannot drift from what is sent; and
// test/integration/webhook-event-docs.test.ts compares each example's keys with a real delivery's.
import { jobEventData } from '../jobs/view.js';
import { captureEventData, filterMissingEventData, testEventData } from '../monitors/view.js';
import type { CaptureRecord } from '../stores/captures.js';
import type { JobRecord } from '../stores/jobs.js';
import type { MonitorRecord } from '../stores/monitors.js';
import { eventBody, EVENT_TYPES, type EventType } from '../webhooks/outbox.js';
import { channelTestEventData } from '../channels/stored.js';
import { code, html, pre, type Markup } from './html.js';

const AT = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T10:00:02.000Z';

/** A monitor as the event functions read it (id, page, name and the address its URLs are built on). */
function sampleMonitor(base: string): MonitorRecord {
  return {
    id: 'mon_5d2c9a41f0b7e3a18c64',
    baseUrl: base,
    settings: { name: 'Pricing page', url: 'https://example.com/pricing' },
  } as MonitorRecord;
}

const capture = (over: Partial<CaptureRecord>): CaptureRecord => ({
  id: 'cap_8e1f03b6c2d94a7e51f0',
  monitorId: 'mon_5d2c9a41f0b7e3a18c64',
  status: 'succeeded',
  reason: 'schedule',
  specVersion: 1,
  takenAt: AT,
  createdAt: AT,
  durationMs: 1830,
  width: 1280,
  height: 2400,
  sha256: null,
  imageKey: 'image',
  diffKey: null,
  baselineId: 'cap_1a2b3c4d5e6f70819203',
  changed: false,
  confirmed: false,
  diffPixels: 0,
  diffRatio: 0,
  regions: [],
  ignoredBoxes: [],
  truncated: false,
  error: null,
  textKey: 'text',
  textChanges: [],
  textChangesTotal: 0,
  conditions: [],
  conditionErrors: [],
  conditionsMet: null,
  content: { kind: 'html', mediaType: 'text/html', bytes: null },
  product: null,
  ...over,
});

const CHANGED = capture({
  diffKey: 'diff',
  changed: true,
  confirmed: true,
  diffPixels: 3712,
  diffRatio: 0.0012,
  regions: [
    {
      x: 412,
      y: 388,
      width: 164,
      height: 40,
      pixels: 3712,
      elements: [{ selector: '#plans .price', tag: 'span', before: '$24.99', after: '$19.99' }],
    },
  ],
  textChanges: [
    {
      kind: 'changed',
      before: 'Price: $24.99',
      after: 'Price: $19.99',
      box: { x: 412, y: 388, width: 164, height: 40 },
      selector: '#plans .price',
      words: [{ value: 'Price: ' }, { value: '$24.99', removed: true }, { value: '$19.99', added: true }],
    },
  ],
  textChangesTotal: 1,
  conditions: [{ index: 0, path: '0', selector: '#plans .price', test: 'numberBelow', met: true, value: 19.99 }],
  conditionsMet: true,
});

const FAILED = capture({
  status: 'failed',
  reason: 'manual',
  width: null,
  height: null,
  imageKey: null,
  baselineId: null,
  textKey: null,
  error: { code: 'render_failed', message: 'The page answered HTTP 503' },
});

const FILTER_MISSING = capture({
  status: 'filter_missing',
  baselineId: null,
  error: { code: 'filter_missing', message: 'diff.filters[0] (css "#plans .price") matched nothing' },
});

const job = (over: Partial<JobRecord>): JobRecord =>
  ({
    id: 'job_7c41e09a2b5d3f68e1a4',
    kind: 'pdf',
    attempts: 1,
    baseUrl: '',
    result: null,
    error: null,
    ...over,
  }) as JobRecord;

/** The `data` of every event type, made by the real functions. */
function exampleData(base: string): Record<EventType, Record<string, unknown>> {
  const monitor = sampleMonitor(base);
  return {
    'monitor.changed': captureEventData(monitor, CHANGED),
    'capture.completed': captureEventData(monitor, capture({})),
    'capture.failed': captureEventData(monitor, FAILED),
    'monitor.filter_missing': filterMissingEventData(monitor, FILTER_MISSING, 3),
    'monitor.test': testEventData(monitor),
    'channel.test': channelTestEventData({ id: 'chn_5e0c2f7a91d3b4e68a20', name: 'Team chat' }),
    'job.succeeded': jobEventData(
      job({
        status: 'succeeded',
        baseUrl: base,
        result: {
          key: 'result',
          contentType: 'application/pdf',
          bytes: 18311,
          expiresAt: '2026-11-23T10:00:01.000Z',
          removed: false,
          meta: {
            renderMs: 412,
            pageCount: 1,
            finalUrl: 'https://example.com/',
            truncated: false,
            diagnostics: {
              failedResources: [{ url: 'https://example.com/logo.png', resourceType: 'image', status: 404 }],
              consoleErrors: [],
              exceptions: [],
              load: {
                endedBy: 'load',
                stagesMs: { queue: 2, navigation: 180, waits: 40, pageChanges: 0, capture: 190 },
              },
              missingGlyphs: [],
            },
          },
        },
      }),
    ),
    'job.failed': jobEventData(
      job({
        status: 'failed',
        attempts: 3,
        error: { code: 'render_timeout', message: 'The render did not finish within its timeout of 30000 ms' },
      }),
    ),
  };
}

/** Each event's body as it is sent (pretty-printed here; the real body is one line). */
export function exampleBodies(base: string): Record<EventType, string> {
  const data = exampleData(base);
  const bodies = EVENT_TYPES.map((type) => {
    const at = type.startsWith('job.') ? new Date(LATER) : new Date(AT);
    return [type, JSON.stringify(JSON.parse(eventBody(type, data[type], at)), null, 2)] as const;
  });
  return Object.fromEntries(bodies) as Record<EventType, string>;
}

/** A paragraph's worth of example: the body of `type` as it is sent, folded away until asked for. */
export function exampleBlock(type: string, base: string): Markup {
  if (!(EVENT_TYPES as readonly string[]).includes(type)) throw new Error(`docs: no event type ${type}`);
  const body = exampleBodies(base)[type as EventType];
  return html`<details class="example">
    <summary>Example body of ${code(type)}</summary>
    ${pre(body, `Example ${type} body`)}
  </details>`;
}
