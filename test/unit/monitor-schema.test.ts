// The monitor body schema (src/http/schemas/monitors.ts) and its JSON Merge Patch, without a service:
// cron messages that name the field at fault, 5- and 6-field expressions, the timezone and nested
// defaults (prefault), the edges of retention.keep, and mergePatch against RFC 7396 (its appendix A).
import { describe, expect, it } from 'vitest';
import { mergePatch, monitorSchema } from '../../src/http/schemas/monitors.js';
import { refusalDetails } from '../helpers/refusal.js';

/** The configuration's defaults. */
const SIZE_LIMITS = { maxFullPageHeight: 16_384, maxImagePixels: 50_000_000 };

// minIntervalSeconds: 1 lets the parsing tests use every-second schedules; its own tests are below.
const schema = monitorSchema({ ...SIZE_LIMITS, maxTimeoutMs: 120_000, maxRetention: 1000, minIntervalSeconds: 1 });
const BASE = { url: 'https://example.com/', schedule: '0 0 1 1 *' };

/**
 * The details the HTTP layer sends for a refused body ({path, message}, path dotted; an unknown field
 * is named by its own path): parseBody over this schema, which must throw 400 invalid_request.
 */
function issues(body: unknown): { path: string; message: string }[] {
  expect(schema.safeParse(body).success, `expected ${JSON.stringify(body)} to be refused`).toBe(false);
  return refusalDetails(schema, body);
}

function accepted(body: unknown) {
  const result = schema.safeParse(body);
  expect(
    result.success,
    `expected ${JSON.stringify(body)} to be accepted: ${result.success ? '' : JSON.stringify(result.error.issues)}`,
  ).toBe(true);
  return result.data!;
}

const withSchedule = (schedule: string) => ({ ...BASE, schedule });

describe('monitorSchema: schedule (cron)', () => {
  // One bad field at a time; the message must name that field and say what is allowed there.
  it.each([
    { schedule: '61 * * * *', field: 'minute', range: '0-59' },
    { schedule: '* 24 * * *', field: 'hour', range: '0-23' },
    { schedule: '* * 32 * *', field: 'dayOfMonth', range: '1-31' },
    { schedule: '* * 0 * *', field: 'dayOfMonth', range: '1-31' },
    { schedule: '* * * 13 *', field: 'month', range: '1-12' },
    { schedule: '* * * * 8', field: 'dayOfWeek', range: '0-7' },
    { schedule: '60 * * * * *', field: 'second', range: '0-59' },
    { schedule: '0 60 * * * *', field: 'minute', range: '0-59' },
    { schedule: '0 0 25 * * *', field: 'hour', range: '0-23' },
  ])('"$schedule" is refused naming the $field field', ({ schedule, field, range }) => {
    const found = issues(withSchedule(schedule));
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toBe('schedule');
    expect(found[0]!.message).toContain(field);
    expect(found[0]!.message).toContain(range);
  });

  it('a 5-field expression puts a bad first field in "minute", a 6-field one in "second"', () => {
    expect(issues(withSchedule('99 * * * *'))[0]!.message).toContain('minute');
    expect(issues(withSchedule('99 * * * *'))[0]!.message).not.toContain('second');
    expect(issues(withSchedule('99 * * * * *'))[0]!.message).toContain('second');
  });

  it.each([
    { schedule: '* * * *', got: 4 },
    { schedule: '0 0 0 1 1 * *', got: 7 },
    { schedule: '*', got: 1 },
  ])('"$schedule" ($got fields) is refused saying 5 or 6 fields are expected', ({ schedule, got }) => {
    const found = issues(withSchedule(schedule));
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toBe('schedule');
    expect(found[0]!.message).toMatch(/5 or 6 fields/);
    expect(found[0]!.message).toContain(String(got));
  });

  it.each(['', 'every day', 'a b c d e'])('nonsense %j is refused at "schedule"', (schedule) => {
    const found = issues(withSchedule(schedule));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((i) => i.path === 'schedule')).toBe(true);
  });

  it('a non-string schedule is refused at "schedule"', () => {
    expect(issues({ ...BASE, schedule: 5 }).map((i) => i.path)).toEqual(['schedule']);
  });

  it.each([
    '*/15 * * * *',
    '0 0 1 1 *',
    '30 4 * * mon-fri',
    '0,30 8-18 * jan-jun 1',
    '0 0 * * 7',
    '0 0 * * sun',
    '*/1 * * * * *',
    '0 */5 * * * *',
    '30 0 9 1 1 *',
    '0 0 0 * * 0-6',
  ])('%j (5 or 6 fields) is accepted unchanged', (schedule) => {
    expect(accepted(withSchedule(schedule)).schedule).toBe(schedule);
  });

  it('the schedule is required', () => {
    expect(issues({ url: BASE.url }).map((i) => i.path)).toEqual(['schedule']);
  });
});

describe('monitorSchema: monitors.minIntervalSeconds', () => {
  const atLeast = (minIntervalSeconds: number) =>
    monitorSchema({ ...SIZE_LIMITS, maxTimeoutMs: 120_000, maxRetention: 1000, minIntervalSeconds });
  const refusal = (min: number, schedule: string) => refusalDetails(atLeast(min), { ...BASE, schedule });

  it.each([
    [60, '* * * * *'],
    [60, '0,1 * * * *'],
    [60, '0 * * * * *'],
    [30, '*/30 * * * * *'],
    [300, '*/5 * * * *'],
    [3600, '0 * * * *'],
  ])('at the edge: %i s accepts %j', (min, schedule) => {
    expect(atLeast(min).safeParse({ ...BASE, schedule }).success).toBe(true);
  });

  it.each([
    [60, '*/30 * * * * *', 30],
    [60, '0,59 * * * * *', 1],
    [30, '0,29 * * * * *', 29],
    [300, '*/4 * * * *', 240],
    [300, '0,4 * * * *', 240],
    [3600, '0,59 * * * *', 60],
    [60, '* * * * * *', 1],
  ])('just under: %i s refuses %j on schedule, naming the gap and the minimum', (min, schedule, gap) => {
    expect(refusal(min, schedule)).toEqual([
      {
        path: 'schedule',
        message: `runs as little as ${gap} s apart; the minimum is ${min} s between runs (monitors.minIntervalSeconds)`,
      },
    ]);
  });

  it('an invalid expression gets only its field message, not a gap', () => {
    expect(refusal(60, '61 * * * *')).toEqual([
      { path: 'schedule', message: expect.stringMatching(/minute field/) as unknown },
    ]);
  });
});

describe('monitorSchema: timezone', () => {
  it('defaults to UTC', () => {
    expect(accepted(BASE).timezone).toBe('UTC');
  });

  it.each(['Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'UTC'])('accepts the IANA name %s', (timezone) => {
    expect(accepted({ ...BASE, timezone }).timezone).toBe(timezone);
  });

  it.each(['Mars/Base', 'Europe/Nowhere', ''])('refuses %j at "timezone"', (timezone) => {
    const found = issues({ ...BASE, timezone });
    expect(found.map((i) => i.path)).toEqual(['timezone']);
    expect(found[0]!.message).toMatch(/IANA/);
  });
});

describe('monitorSchema: defaults', () => {
  const CAPTURE_DEFAULTS = {
    colorScheme: 'light',
    reducedMotion: 'reduce',
    javaScriptEnabled: true,
    headersScope: 'origin',
    waitUntil: 'load',
    delay: 0,
    timeout: 30_000,
    scrollPage: false,
    fullPage: false,
    omitBackground: false,
    animations: 'disabled',
    caret: 'hide',
    steps: [],
    saveLogin: false,
  };
  const DIFF_DEFAULTS = {
    mode: 'visual',
    ignoreText: [],
    threshold: 0.1,
    includeAA: false,
    minChangeRatio: 0,
    ignoreRegions: [],
    ignoreSelectors: [],
    confirm: true,
    filters: [],
    filterMissingAfter: 3,
  };

  it('a bare {url, schedule} gets every documented default, and no name (the service names it by its url)', () => {
    expect(accepted(BASE)).toStrictEqual({
      url: BASE.url,
      schedule: BASE.schedule,
      timezone: 'UTC',
      paused: false,
      capture: CAPTURE_DEFAULTS,
      diff: DIFF_DEFAULTS,
      notifyWhen: [],
      notify: ['change', 'failure'],
      tags: [],
      retention: { keep: 100 },
    });
  });

  it('prefault: a partial nested object keeps its own values and gets the other defaults', () => {
    const parsed = accepted({
      ...BASE,
      capture: { viewport: { width: 800, height: 600 }, delay: 250 },
      diff: { threshold: 0.2 },
      retention: {},
    });
    expect(parsed.capture).toStrictEqual({ ...CAPTURE_DEFAULTS, viewport: { width: 800, height: 600 }, delay: 250 });
    expect(parsed.diff).toStrictEqual({ ...DIFF_DEFAULTS, threshold: 0.2 });
    expect(parsed.retention).toStrictEqual({ keep: 100 });
  });

  it('reducedMotion can be turned back to "no-preference"', () => {
    expect(accepted({ ...BASE, capture: { reducedMotion: 'no-preference' } }).capture.reducedMotion).toBe(
      'no-preference',
    );
  });

  it('given values are kept: name trimmed, paused, notify, webhookUrl', () => {
    const parsed = accepted({
      ...BASE,
      name: '  Pricing page  ',
      paused: true,
      notify: ['capture'],
      webhookUrl: 'https://hooks.example.com/x',
    });
    expect(parsed).toMatchObject({
      name: 'Pricing page',
      paused: true,
      notify: ['capture'],
      webhookUrl: 'https://hooks.example.com/x',
    });
  });

  it('an empty notify list is allowed (no events)', () => {
    expect(accepted({ ...BASE, notify: [] }).notify).toEqual([]);
  });
});

describe('monitorSchema: refusals and edges', () => {
  it.each([
    { what: 'missing url', body: { schedule: BASE.schedule }, path: 'url' },
    { what: 'ftp url', body: { ...BASE, url: 'ftp://example.com/' }, path: 'url' },
    { what: 'relative url', body: { ...BASE, url: '/page' }, path: 'url' },
    { what: 'unknown top-level field', body: { ...BASE, colour: 'red' }, path: 'colour' },
    {
      what: 'capture.format (captures are PNG)',
      body: { ...BASE, capture: { format: 'jpeg' } },
      path: 'capture.format',
    },
    { what: 'capture.quality', body: { ...BASE, capture: { quality: 80 } }, path: 'capture.quality' },
    { what: 'capture.url', body: { ...BASE, capture: { url: 'https://example.com/' } }, path: 'capture.url' },
    {
      what: 'capture.fullPage with capture.clip',
      body: { ...BASE, capture: { fullPage: true, clip: { x: 0, y: 0, width: 10, height: 10 } } },
      path: 'capture.clip',
    },
    {
      what: 'capture.selector with capture.clip',
      body: { ...BASE, capture: { selector: '#a', clip: { x: 0, y: 0, width: 10, height: 10 } } },
      path: 'capture.clip',
    },
    { what: 'diff.threshold 1.5', body: { ...BASE, diff: { threshold: 1.5 } }, path: 'diff.threshold' },
    {
      what: 'diff.minChangeRatio -0.1',
      body: { ...BASE, diff: { minChangeRatio: -0.1 } },
      path: 'diff.minChangeRatio',
    },
    { what: 'unknown diff field', body: { ...BASE, diff: { mode: 'strict' } }, path: 'diff.mode' },
    {
      what: 'ignoreRegions width 0',
      body: { ...BASE, diff: { ignoreRegions: [{ x: 0, y: 0, width: 0, height: 5 }] } },
      path: 'diff.ignoreRegions.0.width',
    },
    {
      what: 'ignoreRegions negative x',
      body: { ...BASE, diff: { ignoreRegions: [{ x: -1, y: 0, width: 5, height: 5 }] } },
      path: 'diff.ignoreRegions.0.x',
    },
    {
      what: 'ignoreSelectors empty string',
      body: { ...BASE, diff: { ignoreSelectors: [''] } },
      path: 'diff.ignoreSelectors.0',
    },
    { what: 'notify duplicates', body: { ...BASE, notify: ['change', 'change'] }, path: 'notify' },
    { what: 'notify unknown event', body: { ...BASE, notify: ['sms'] }, path: 'notify.0' },
    { what: 'retention.keep 0', body: { ...BASE, retention: { keep: 0 } }, path: 'retention.keep' },
    {
      what: 'retention.keep 1001 (over maxRetention)',
      body: { ...BASE, retention: { keep: 1001 } },
      path: 'retention.keep',
    },
    { what: 'retention.keep 1.5', body: { ...BASE, retention: { keep: 1.5 } }, path: 'retention.keep' },
    { what: 'webhookUrl not http(s)', body: { ...BASE, webhookUrl: 'mailto:a@example.com' }, path: 'webhookUrl' },
    { what: 'empty name', body: { ...BASE, name: '   ' }, path: 'name' },
  ])('$what → refused at "$path"', ({ body, path }) => {
    expect(issues(body).map((i) => i.path)).toContain(path);
  });

  it('notify duplicates say so', () => {
    expect(issues({ ...BASE, notify: ['change', 'change'] })[0]!.message).toMatch(/at most once/);
  });

  it.each([1, 1000])('retention.keep %i (an edge) is accepted', (keep) => {
    expect(accepted({ ...BASE, retention: { keep } }).retention.keep).toBe(keep);
  });

  it('capture options are held to the image size caps like a render request', () => {
    const capped = monitorSchema({
      maxTimeoutMs: 120_000,
      maxRetention: 1000,
      minIntervalSeconds: 1,
      maxFullPageHeight: 2000,
      maxImagePixels: 2_000_000,
    });
    const paths = (capture: object) => refusalDetails(capped, { ...BASE, capture }).map((d) => d.path);
    expect(
      capped.safeParse({ ...BASE, capture: { viewport: { width: 500, height: 1000 }, deviceScaleFactor: 2 } }).success,
    ).toBe(true);
    expect(paths({ viewport: { width: 500, height: 1001 }, deviceScaleFactor: 2 })).toEqual(['capture.viewport']);
    expect(paths({ clip: { x: 0, y: 0, width: 2001, height: 10 } })).toEqual(['capture.clip.width']);
  });

  it('maxRetention comes from the limits it is built with', () => {
    const small = monitorSchema({ ...SIZE_LIMITS, maxTimeoutMs: 120_000, maxRetention: 5, minIntervalSeconds: 1 });
    expect(small.safeParse({ ...BASE, retention: { keep: 5 } }).success).toBe(true);
    expect(small.safeParse({ ...BASE, retention: { keep: 6 } }).success).toBe(false);
  });

  it('parseBody turns several problems into one 400 with a detail each (unknown fields named in a sentence)', () => {
    const details = refusalDetails(schema, {
      url: 'ftp://x/',
      schedule: '61 * * * *',
      timezone: 'Mars/Base',
      extra: 1,
    });
    expect(details.map((d) => d.path).sort()).toEqual(['extra', 'schedule', 'timezone', 'url']);
    expect(details.find((d) => d.path === 'extra')!.message).toBe(
      'extra is not a field this request takes: check its spelling, or remove it.',
    );
    expect(details.find((d) => d.path === 'schedule')!.message).toContain('minute');
  });
});

describe('mergePatch (RFC 7396)', () => {
  // RFC 7396 appendix A, every example: [target, patch, result].
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('#%# %j + %j → %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toStrictEqual(result);
  });

  it('merges nested objects key by key, at any depth', () => {
    const target = {
      diff: { threshold: 0.1, confirm: true, ignoreRegions: [] },
      capture: { viewport: { width: 800, height: 600 }, delay: 0 },
    };
    expect(mergePatch(target, { diff: { threshold: 0.2 }, capture: { viewport: { height: 900 } } })).toStrictEqual({
      diff: { threshold: 0.2, confirm: true, ignoreRegions: [] },
      capture: { viewport: { width: 800, height: 900 }, delay: 0 },
    });
  });

  it('null removes a key (webhookUrl: null), and removing a missing key is not an error', () => {
    expect(mergePatch({ url: 'u', webhookUrl: 'w' }, { webhookUrl: null })).toStrictEqual({ url: 'u' });
    expect(mergePatch({ url: 'u' }, { webhookUrl: null })).toStrictEqual({ url: 'u' });
  });

  it('arrays are replaced whole, never merged by index', () => {
    expect(mergePatch({ notify: ['change', 'failure'] }, { notify: ['capture'] })).toStrictEqual({
      notify: ['capture'],
    });
    expect(mergePatch({ diff: { ignoreSelectors: ['#a', '#b'] } }, { diff: { ignoreSelectors: [] } })).toStrictEqual({
      diff: { ignoreSelectors: [] },
    });
    // Arrays of objects too: the patch's element is not merged into the target's element at that index.
    expect(
      mergePatch(
        {
          diff: {
            ignoreRegions: [
              { x: 0, y: 0, width: 10, height: 10 },
              { x: 50, y: 50, width: 5, height: 5 },
            ],
          },
        },
        { diff: { ignoreRegions: [{ x: 5 }] } },
      ),
    ).toStrictEqual({ diff: { ignoreRegions: [{ x: 5 }] } });
  });

  it('a non-object patch replaces the target whole; an object patch on a non-object target starts from {}', () => {
    expect(mergePatch({ a: 1 }, 42)).toBe(42);
    expect(mergePatch({ a: 1 }, true)).toBe(true);
    expect(mergePatch('x', { a: 1 })).toStrictEqual({ a: 1 });
    expect(mergePatch(null, { a: { b: 1 } })).toStrictEqual({ a: { b: 1 } });
    expect(mergePatch({ a: 'scalar' }, { a: { b: 1 } })).toStrictEqual({ a: { b: 1 } });
  });

  it('an empty patch changes nothing', () => {
    expect(mergePatch({ a: 1, b: { c: 2 } }, {})).toStrictEqual({ a: 1, b: { c: 2 } });
  });

  it('leaves the target and the patch unmodified', () => {
    const target = { a: 1, b: { c: 2, d: [1, 2] } };
    const patch = { a: null, b: { c: 3, e: { f: null } } };
    const targetCopy = structuredClone(target);
    const patchCopy = structuredClone(patch);
    const result = mergePatch(target, patch);
    expect(result).toStrictEqual({ b: { c: 3, d: [1, 2], e: {} } });
    expect(target).toStrictEqual(targetCopy);
    expect(patch).toStrictEqual(patchCopy);
  });

  it('a "__proto__" member of a parsed JSON patch does not change the result\'s prototype', () => {
    // JSON.parse makes "__proto__" an ordinary own key; the merged object must not inherit from it.
    const result = mergePatch(
      { url: 'u' },
      JSON.parse('{"__proto__": {"webhookUrl": "http://169.254.169.254/"}}'),
    ) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(result.webhookUrl).toBeUndefined();
  });

  it('merged then validated: a patch of one nested field yields a whole valid monitor', () => {
    const stored = accepted({
      ...BASE,
      diff: { minChangeRatio: 0.01, ignoreSelectors: ['#ad'] },
      webhookUrl: 'https://h.example.com/',
    });
    const merged = accepted(mergePatch(stored, { diff: { threshold: 0.3 }, webhookUrl: null }));
    expect(merged.diff).toStrictEqual({ ...stored.diff, threshold: 0.3 });
    expect(merged).not.toHaveProperty('webhookUrl');
    expect(merged.capture).toStrictEqual(stored.capture);
  });
});

describe('monitorSchema: credentials in a URL', () => {
  it('refuses them in url, pointing at capture.httpCredentials, where the password is write-only', () => {
    expect(issues({ ...BASE, url: 'https://ann:pw@example.com/' })).toEqual([
      {
        path: 'url',
        message:
          'url may not hold a user name or password (user:password@host): give them as capture.httpCredentials, ' +
          'where the password is write-only',
      },
    ]);
  });

  it('refuses them in webhookUrl', () => {
    expect(issues({ ...BASE, webhookUrl: 'https://ann:pw@hooks.example.com/' })[0]!.message).toMatch(
      /^webhookUrl may not hold a user name or password .*webhook-signature/,
    );
  });
});
