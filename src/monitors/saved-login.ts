// Saved logins (capture.saveLogin): what of the browser state a monitor's steps signed in with is kept,
// how it is sealed at rest, when it is used, and when settings make it meaningless. The renderer starts
// a single-use context from it and probes loggedInWhen (src/render/load/saved-login.ts); the capture job
// decides and saves (capture-job.ts).
import type { CaptureOptions, MonitorSettings } from '../domain/monitor-settings.js';
import type { LoginOutcome, LoginState } from '../domain/saved-login.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { SavedLoginRecord } from '../stores/logins.js';
import { sameCapture } from './capture-secrets.js';
import { canonicalJson } from '../jobs/queue.js';

/**
 * The most a saved state may take, serialized, in bytes. Browsers keep up to ~4 KiB per cookie and a few
 * MiB of localStorage per origin; a site that stores that much has stored a cache, not a login. Over it,
 * nothing is saved (the capture says `refused`) and the steps run every time, as without saveLogin.
 */
export const MAX_LOGIN_STATE_BYTES = 256 * 1024;

/** The options without the saved-login ones: these do not change what is captured (no new baseline). */
export function withoutLogin(capture: CaptureOptions): Omit<CaptureOptions, 'saveLogin' | 'loggedInWhen'> {
  const { saveLogin: _saveLogin, loggedInWhen: _loggedInWhen, ...rest } = capture;
  return rest;
}

/**
 * Whether a saved login no longer belongs to the settings: it was made by the old steps on the old url
 * and judged by the old probe, or the monitor stopped keeping one.
 */
export function loginOutdated(before: MonitorSettings, after: MonitorSettings, box: SecretBox, id: string): boolean {
  return (
    !after.capture.saveLogin ||
    after.url !== before.url ||
    canonicalJson(after.capture.loggedInWhen ?? null) !== canonicalJson(before.capture.loggedInWhen ?? null) ||
    !sameCapture({ steps: after.capture.steps }, { steps: before.capture.steps }, box, id)
  );
}

/** The origins a monitor signs in on: its url's and those its steps go to. */
export function monitoredOrigins(settings: Pick<MonitorSettings, 'url' | 'capture'>): string[] {
  const urls = [
    settings.url,
    ...settings.capture.steps.flatMap((s) => (s.action === 'goto' && s.value ? [s.value] : [])),
  ];
  const origins = urls.flatMap((url) => {
    const origin = URL.parse(url)?.origin;
    return origin && origin !== 'null' ? [origin] : [];
  });
  return [...new Set(origins)];
}

/** Whether a cookie of `domain` (".example.com" or "example.com" or an address) is sent to `host`. */
function cookieReaches(domain: string, host: string): boolean {
  const bare = domain.replace(/^\./, '').toLowerCase();
  return host === bare || (domain.startsWith('.') && host.endsWith(`.${bare}`));
}

/**
 * What is kept of the state the steps left: the cookies sent to a monitored origin's host and the
 * localStorage of the monitored origins. Anything else the page touched (a tracker, a CDN) stays behind.
 */
export function limitState(state: LoginState, origins: string[]): LoginState {
  const hosts = origins.map((o) => new URL(o).hostname.toLowerCase());
  return {
    cookies: state.cookies.filter((c) => hosts.some((host) => cookieReaches(c.domain, host))),
    origins: state.origins.filter((o) => origins.includes(o.origin)),
  };
}

/** The state as sealed text, or undefined when its serialized form is over MAX_LOGIN_STATE_BYTES. */
export function serializeState(state: LoginState, maxBytes = MAX_LOGIN_STATE_BYTES): string | undefined {
  const text = JSON.stringify(state);
  return Buffer.byteLength(text, 'utf8') <= maxBytes ? text : undefined;
}

/** Bound to the monitor: a sealed state copied onto another monitor's row does not open there. */
const sealContext = (monitorId: string) => `login:${monitorId}`;

export function sealState(text: string, box: SecretBox, monitorId: string): string {
  return box.encrypt(text, sealContext(monitorId));
}

/** The saved state, or undefined when it does not open (another secrets key, an altered row). */
export function openState(record: SavedLoginRecord, box: SecretBox): LoginState | undefined {
  try {
    return JSON.parse(box.decrypt(record.state, sealContext(record.monitorId))) as LoginState;
  } catch {
    return undefined;
  }
}

/** What a capture starts from: the saved state when it is there and current; `expired` when it is past its time. */
export function loginToUse(
  record: SavedLoginRecord | undefined,
  box: SecretBox,
  now: Date,
): { state?: LoginState; expired?: true } {
  if (!record) return {};
  if (now.getTime() >= Date.parse(record.expiresAt)) return { expired: true };
  const state = openState(record, box);
  return state ? { state } : {};
}

/** The outcome of a capture whose steps ran (none held): saved, or expired, or refused when too large. */
export function outcomeOfSteps(expired: boolean, kept: boolean): LoginOutcome {
  if (!kept) return 'refused';
  return expired ? 'expired' : 'saved';
}
