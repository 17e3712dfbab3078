// The limits table of the docs page: each setting with this service's configured value and what it means.
import { anonymousBodyLimit, type Config } from '../config.js';
import { bytes, duration, html, type Markup } from './html.js';

export interface LimitRow {
  setting: string;
  value: Markup;
  meaning: string;
}

export function limitRows(c: Readonly<Config>): LimitRow[] {
  const anonBody = anonymousBodyLimit(c.limits);
  const v = (raw: number, unit: string, words?: string) =>
    html`<strong>${raw}</strong> ${unit}${words ? html` <span class="muted">(${words})</span>` : ''}`;
  const retries = c.webhooks.retryScheduleMs;
  return [
    {
      setting: 'limits.maxBodyBytes',
      value: v(c.limits.maxBodyBytes, 'bytes', bytes(c.limits.maxBodyBytes)),
      meaning: 'Largest request body with an API key (JSON or HTML); larger is 413.',
    },
    {
      setting: 'limits.anonymousMaxBodyBytes',
      value: v(anonBody, 'bytes', bytes(anonBody)),
      meaning: 'Largest request body without a key; larger is 413.',
    },
    {
      setting: 'limits.maxTimeoutMs',
      value: v(c.limits.maxTimeoutMs, 'ms', duration(c.limits.maxTimeoutMs)),
      meaning: 'Largest "timeout" a render may ask for (the default is 30000 ms).',
    },
    {
      setting: 'limits.anonymousMaxTimeoutMs',
      value: v(c.limits.anonymousMaxTimeoutMs, 'ms', duration(c.limits.anonymousMaxTimeoutMs)),
      meaning: 'Largest "timeout" without a key; larger is 400 on timeout (a key may ask up to limits.maxTimeoutMs).',
    },
    {
      setting: 'limits.anonymousConcurrencyPerIp',
      value: v(c.limits.anonymousConcurrencyPerIp, 'renders'),
      meaning:
        'Renders at once per client address without a key (an IPv6 /64 is one address); one more is 429 rate_limited.',
    },
    {
      setting: 'limits.anonymousMaxPdfPages',
      value: v(c.limits.anonymousMaxPdfPages, 'pages'),
      meaning: 'Longest PDF without a key (of the pages pageRanges selects); longer is 422 render_failed.',
    },
    {
      setting: 'limits.maxFullPageHeight',
      value: v(c.limits.maxFullPageHeight, 'px'),
      meaning:
        'Largest width or height of an image, every capture mode. A larger viewport or clip is 400 (422 ' +
        'render_failed for a monitor or job stored before the limit was lowered); a full page or element is ' +
        'cut and answers X-Truncated (full-page, width, height). Sizes are measured by the browser, never ' +
        "taken from the page's own JavaScript.",
    },
    {
      setting: 'limits.maxImagePixels',
      value: v(c.limits.maxImagePixels, 'pixels'),
      meaning:
        'Largest image in output pixels (width × height × deviceScaleFactor²), counted at the scale the ' +
        'request asked for, whatever the page claims. A larger viewport or clip is 400 (422 render_failed for ' +
        'a monitor or job stored before the limit was lowered); a full page or element keeps its width and is ' +
        'cut in height.',
    },
    {
      setting: 'render.concurrency',
      value: v(c.render.concurrency, 'renders'),
      meaning: 'Renders running at once (synchronous and async together).',
    },
    {
      setting: 'render.queueSize',
      value: v(c.render.queueSize, 'renders'),
      meaning: 'Renders waiting for a slot; beyond it 429 queue_full with Retry-After.',
    },
    {
      setting: 'render.restartAfter',
      value: v(c.render.restartAfter, 'renders'),
      meaning: 'The browser is recycled after this many renders, without failing a request.',
    },
    {
      setting: 'rateLimit.perKeyPerMinute',
      value: v(c.rateLimit.perKeyPerMinute, 'requests / minute'),
      meaning: 'Per API key; beyond it 429 rate_limited with Retry-After.',
    },
    {
      setting: 'rateLimit.anonymousPerMinute',
      value: v(c.rateLimit.anonymousPerMinute, 'requests / minute'),
      meaning: 'Per client IP without a key (an IPv6 /64 counts as one).',
    },
    {
      setting: 'jobs.resultTtlHours',
      value: v(c.jobs.resultTtlHours, 'hours'),
      meaning: 'How long an async result can be fetched; then 410 gone and the file is removed.',
    },
    {
      setting: 'jobs.recordTtlDays',
      value: v(c.jobs.recordTtlDays, 'days'),
      meaning:
        'Finished jobs, and webhook deliveries with their attempts, are deleted this long after they ended (then 404).',
    },
    {
      setting: 'jobs.maxQueuedPerKey',
      value: v(c.jobs.maxQueuedPerKey, 'jobs'),
      meaning:
        "Queued and running async jobs and monitor captures per key; beyond it 429 queue_full, and a monitor's " +
        'schedule tick is skipped.',
    },
    {
      setting: 'jobs.maxAttempts',
      value: v(c.jobs.maxAttempts, 'tries'),
      meaning: 'Tries per async job when its worker dies or the browser fails, before it fails.',
    },
    {
      setting: 'monitors.maxPerKey',
      value: v(c.monitors.maxPerKey, 'monitors'),
      meaning: 'Monitors per key; beyond it 409 conflict.',
    },
    {
      setting: 'monitors.maxRetention',
      value: v(c.monitors.maxRetention, 'captures'),
      meaning: 'Largest retention.keep a monitor may ask for.',
    },
    {
      setting: 'monitors.minIntervalSeconds',
      value: v(c.monitors.minIntervalSeconds, 's', duration(c.monitors.minIntervalSeconds * 1000)),
      meaning: "Shortest time between two runs of a monitor's schedule; a faster schedule is 400 on schedule.",
    },
    {
      setting: 'monitors.maxStoredBytesPerKey',
      value: v(c.monitors.maxStoredBytesPerKey, 'bytes', bytes(c.monitors.maxStoredBytesPerKey)),
      meaning:
        "Capture and diff images kept per key; past it the oldest captures that are not a monitor's baseline " +
        'are removed.',
    },
    {
      setting: 'webhooks.timeoutMs',
      value: v(c.webhooks.timeoutMs, 'ms', duration(c.webhooks.timeoutMs)),
      meaning: 'A receiver that has not answered in this time failed the attempt.',
    },
    {
      setting: 'webhooks.retryScheduleMs',
      value: retries.length
        ? html`${retries.map((ms, i) => html`${i ? ', ' : ''}<strong>${ms}</strong>`)} ms
            <span class="muted">(${retries.map(duration).join(', ')})</span>`
        : html`<strong>none</strong>`,
      meaning:
        `Delays before each retry of a failed delivery, each ±20\u00a0% jitter: ${retries.length} ` +
        `${retries.length === 1 ? 'retry' : 'retries'}, then the delivery has failed.`,
    },
  ];
}
