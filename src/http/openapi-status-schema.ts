// The parts of GET /api/status's schema that /status draws its last hour from: this node's renders
// minute by minute (kept in its memory), and the cluster's failing monitors, webhook backlog and disk use
// (read from the database). Apart from openapi-schemas.ts to keep that file about the older shapes.
import { int, nullableStr, obj, time } from './openapi-schema-kit.js';
import type { JsonSchema } from './openapi-schemas.js';

const OUTCOMES = ['ok', 'failed', 'blocked', 'timedOut', 'rateLimited', 'queueFull', 'canceled'];

const outcomes = (extra: Record<string, JsonSchema> = {}) =>
  obj({ ...Object.fromEntries(OUTCOMES.map((o) => [o, int()])), ...extra }, OUTCOMES, {
    description:
      'Render requests by how they ended: ok; failed (the page could not be rendered, or the browser was ' +
      'down); blocked (url_blocked); timedOut (render_timeout); rateLimited and queueFull (refused with 429, ' +
      'before any render); canceled (the client went away)',
  });

const percentiles = (what: string): JsonSchema => ({
  type: ['object', 'null'],
  description: `${what}, ms: p50 and p95 read from a histogram with 10 % wide buckets (within 10 % of the exact value); null when there were none`,
  properties: { count: int(), p50: int(), p95: int(), max: int() },
  required: ['count', 'p50', 'p95', 'max'],
});

export const STATUS_ADDITIONS: Record<string, JsonSchema> = {
  lastHour: obj(
    {
      node: { type: 'string', description: 'The node these figures are of: the one that answered' },
      from: time('Start of the oldest minute (UTC)'),
      to: time('Now (UTC)'),
      minuteSeconds: int('Width of a bucket: 60'),
      renders: outcomes({ total: int() }),
      renderMs: percentiles('Time of successful renders, queue wait included (as X-Render-Ms)'),
      queueWaitMs: percentiles('Time each render waited for a render slot'),
      minutes: {
        type: 'array',
        description: 'The 60 minutes of the window, oldest first; the last is the current minute so far',
        items: obj(
          {
            start: time(),
            renders: outcomes(),
            renderMs: percentiles('Successful renders of this minute'),
            queueWaitMs: percentiles('Queue waits of this minute'),
          },
          ['start', 'renders', 'renderMs', 'queueWaitMs'],
        ),
      },
    },
    ['node', 'from', 'to', 'minuteSeconds', 'renders', 'renderMs', 'queueWaitMs', 'minutes'],
    {
      description:
        "The last hour of this node's renders (synchronous, async jobs and monitor captures), kept in its " +
        'memory: a restart starts it over, and with several nodes each answers with its own',
    },
  ),
  webhookDeliveries: obj(
    {
      pending: int('Waiting to be sent: the backlog'),
      retrying: int('Of those, failed at least once and waiting for a retry'),
      oldestPendingAt: nullableStr('When the oldest waiting delivery was recorded'),
      lastHour: obj({ succeeded: int(), failed: int('Failed for good') }, ['succeeded', 'failed'], {
        description: 'Deliveries that ended in the last hour',
      }),
    },
    ['pending', 'retrying', 'oldestPendingAt', 'lastHour'],
    { description: "The cluster's webhook deliveries (from the database)" },
  ),
  storage: obj(
    {
      captureBytes: int("Monitors' capture images and diffs kept"),
      resultBytes: int('Results of async jobs not yet expired'),
    },
    ['captureBytes', 'resultBytes'],
    { description: 'Disk used, as the records count it (no file is read; refreshed at most every 5 s)' },
  ),
};
