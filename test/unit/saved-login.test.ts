// Saved logins' pure rules (src/monitors/saved-login.ts, src/http/schemas/saved-login.ts): the settings
// a monitor needs to keep a login, what of a browser state is kept (the monitored origins only), the size
// cap at and over its edge, sealing bound to the monitor, expiry by the given time, and which setting
// changes make a saved login meaningless.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { monitorSchema } from '../../src/http/schemas/monitors.js';
import { MAX_SEARCH_TEXT_CHARS, MAX_SELECTOR_CHARS } from '../../src/http/schemas/string-caps.js';
import type { LoginState, StoredCookie } from '../../src/domain/saved-login.js';
import type { MonitorSettings } from '../../src/domain/monitor-settings.js';
import { SecretBox } from '../../src/secrets/secret-box.js';
import {
  limitState,
  loginOutdated,
  loginToUse,
  MAX_LOGIN_STATE_BYTES,
  monitoredOrigins,
  openState,
  sealState,
  serializeState,
} from '../../src/monitors/saved-login.js';
import { refusalDetails } from '../helpers/refusal.js';

const schema = monitorSchema({
  maxFullPageHeight: 16_384,
  maxImagePixels: 50_000_000,
  maxTimeoutMs: 120_000,
  maxRetention: 1000,
  minIntervalSeconds: 1,
});
const STEPS = [{ action: 'click', selector: '#sign-in' }];
const body = (capture: Record<string, unknown>) => ({
  url: 'https://app.example/account',
  schedule: '0 0 1 1 *',
  capture,
});
const accepts = (capture: Record<string, unknown>) => {
  const result = schema.safeParse(body(capture));
  expect(result.success, result.success ? '' : JSON.stringify(result.error.issues)).toBe(true);
  return result.data!.capture;
};
const refuses = (capture: Record<string, unknown>) => refusalDetails(schema, body(capture));
/** The one refusal of `capture`: its path and message. */
const refusal = (capture: Record<string, unknown>) => {
  const details = refuses(capture);
  expect(details).toHaveLength(1);
  return details[0]!;
};

describe('capture.saveLogin and capture.loggedInWhen', () => {
  it('default to no saved login; saveLogin with steps and a probe is taken', () => {
    expect(accepts({}).saveLogin).toBe(false);
    const capture = accepts({ steps: STEPS, saveLogin: true, loggedInWhen: { text: 'Signed in as' } });
    expect(capture).toMatchObject({ saveLogin: true, loggedInWhen: { text: 'Signed in as' } });
    expect(accepts({ steps: STEPS, saveLogin: true, loggedInWhen: { selector: '#me' } }).loggedInWhen).toEqual({
      selector: '#me',
    });
  });

  it('refuses saveLogin without steps, without loggedInWhen, or with a POST', () => {
    expect(refusal({ saveLogin: true, loggedInWhen: { text: 'x' } })).toMatchObject({
      path: 'capture.saveLogin',
      message: expect.stringContaining('add capture.steps') as string,
    });
    expect(refusal({ steps: STEPS, saveLogin: true })).toMatchObject({
      path: 'capture.loggedInWhen',
      message: expect.stringContaining('saveLogin needs loggedInWhen') as string,
    });
    expect(
      refusal({ steps: STEPS, saveLogin: true, loggedInWhen: { text: 'x' }, method: 'POST', body: 'a=1' }),
    ).toMatchObject({ path: 'capture.saveLogin', message: expect.stringContaining('method GET') as string });
  });

  it('loggedInWhen takes exactly one of selector and text, nothing else', () => {
    const both = refuses({ steps: STEPS, saveLogin: true, loggedInWhen: { selector: '#a', text: 'b' } });
    expect(both).toEqual([{ path: 'capture.loggedInWhen', message: 'give exactly one of selector and text' }]);
    expect(refuses({ steps: STEPS, saveLogin: true, loggedInWhen: {} })).toEqual([
      { path: 'capture.loggedInWhen', message: 'give exactly one of selector and text' },
    ]);
    expect(refuses({ loggedInWhen: { xpath: '//a' } })[0]!.path).toBe('capture.loggedInWhen.xpath');
    expect(refuses({ loggedInWhen: { text: '' } })[0]!.path).toBe('capture.loggedInWhen.text');
  });

  it('caps the selector and the text like other selectors and texts, at and over the edge', () => {
    accepts({ loggedInWhen: { selector: 'a'.repeat(MAX_SELECTOR_CHARS) } });
    accepts({ loggedInWhen: { text: 'a'.repeat(MAX_SEARCH_TEXT_CHARS) } });
    expect(refusal({ loggedInWhen: { selector: 'a'.repeat(MAX_SELECTOR_CHARS + 1) } })).toMatchObject({
      path: 'capture.loggedInWhen.selector',
      message: expect.stringContaining('at most 1,000 characters') as string,
    });
    expect(refusal({ loggedInWhen: { text: 'a'.repeat(MAX_SEARCH_TEXT_CHARS + 1) } })).toMatchObject({
      path: 'capture.loggedInWhen.text',
      message: expect.stringContaining('at most 1,000 characters') as string,
    });
  });
});

const cookie = (name: string, domain: string): StoredCookie => ({
  name,
  value: `v-${name}`,
  domain,
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: 'Lax',
});

describe('what of a browser state is kept', () => {
  it("the monitored origins are the url's and its goto steps'", () => {
    const settings = {
      url: 'https://app.example/account',
      capture: {
        steps: [
          { action: 'goto' as const, value: 'https://login.example/form' },
          { action: 'click' as const, selector: '#x' },
          { action: 'goto' as const, value: 'https://app.example/home' },
        ],
      },
    } as Pick<MonitorSettings, 'url' | 'capture'>;
    expect(monitoredOrigins(settings)).toEqual(['https://app.example', 'https://login.example']);
  });

  it("keeps cookies sent to a monitored host and those origins' localStorage; nothing of other sites", () => {
    const state: LoginState = {
      cookies: [
        cookie('host', 'app.example'),
        cookie('parent', '.example'),
        cookie('sub', '.app.example'),
        cookie('tracker', 'tracker.test'),
        cookie('sibling', 'other.example'),
        cookie('lookalike', 'evilapp.example'),
      ],
      origins: [
        { origin: 'https://app.example', localStorage: [{ name: 'token', value: 't' }] },
        { origin: 'http://app.example', localStorage: [{ name: 'plain', value: 'p' }] },
        { origin: 'https://tracker.test', localStorage: [{ name: 'id', value: 'i' }] },
      ],
    };
    const kept = limitState(state, ['https://app.example']);
    expect(kept.cookies.map((c) => c.name)).toEqual(['host', 'parent', 'sub']);
    expect(kept.origins.map((o) => o.origin)).toEqual(['https://app.example']);
  });

  it(`keeps a state of exactly ${MAX_LOGIN_STATE_BYTES} bytes and refuses one byte more`, () => {
    const sized = (bytes: number): LoginState => {
      const empty = JSON.stringify({ cookies: [cookie('c', 'a.example')], origins: [] });
      const c = cookie('c', 'a.example');
      c.value = 'x'.repeat(bytes - empty.length + c.value.length);
      return { cookies: [c], origins: [] };
    };
    const atEdge = sized(MAX_LOGIN_STATE_BYTES);
    expect(Buffer.byteLength(JSON.stringify(atEdge))).toBe(MAX_LOGIN_STATE_BYTES);
    expect(serializeState(atEdge)).toBe(JSON.stringify(atEdge));
    expect(serializeState(sized(MAX_LOGIN_STATE_BYTES + 1))).toBeUndefined();
  });
});

describe('a saved login at rest and in time', () => {
  const box = new SecretBox(randomBytes(32));
  const state: LoginState = { cookies: [cookie('sid', 'app.example')], origins: [] };
  const record = (over: Record<string, string> = {}) => ({
    monitorId: 'mon_a',
    keyId: 'key_a',
    state: sealState(JSON.stringify(state), box, 'mon_a'),
    origins: ['https://app.example'],
    savedAt: '2026-11-22T10:00:00.000Z',
    expiresAt: '2026-11-29T10:00:00.000Z',
    ...over,
  });

  it('is sealed (no cookie value in clear) and opens only for its own monitor and key', () => {
    const saved = record();
    expect(saved.state).not.toContain('v-sid');
    expect(openState(saved, box)).toEqual(state);
    expect(openState({ ...saved, monitorId: 'mon_b' }, box)).toBeUndefined();
    expect(openState(saved, new SecretBox(randomBytes(32)))).toBeUndefined();
  });

  it('is used until it expires, then says expired', () => {
    expect(loginToUse(undefined, box, new Date('2026-11-23T00:00:00Z'))).toEqual({});
    expect(loginToUse(record(), box, new Date('2026-11-29T09:59:59.999Z'))).toEqual({ state });
    expect(loginToUse(record(), box, new Date('2026-11-29T10:00:00.000Z'))).toEqual({ expired: true });
  });

  it('is forgotten when the url, the steps or the probe change, or saveLogin goes off; not otherwise', () => {
    const before = {
      url: 'https://app.example/account',
      capture: { steps: STEPS, saveLogin: true, loggedInWhen: { text: 'Signed in' } },
    } as unknown as MonitorSettings;
    const changed = (over: object) => ({ ...before, ...over });
    const capture = (over: object) => changed({ capture: { ...before.capture, ...over } });
    expect(loginOutdated(before, changed({ schedule: '* * * * *' }), box, 'mon_a')).toBe(false);
    expect(loginOutdated(before, capture({ fullPage: true }), box, 'mon_a')).toBe(false);
    expect(loginOutdated(before, changed({ url: 'https://app.example/other' }), box, 'mon_a')).toBe(true);
    expect(loginOutdated(before, capture({ steps: [...STEPS, STEPS[0]] }), box, 'mon_a')).toBe(true);
    expect(loginOutdated(before, capture({ loggedInWhen: { text: 'Hello' } }), box, 'mon_a')).toBe(true);
    expect(loginOutdated(before, capture({ saveLogin: false }), box, 'mon_a')).toBe(true);
  });
});
