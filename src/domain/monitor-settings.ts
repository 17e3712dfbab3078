// What a monitor is set to do: the page, its schedule, how it is captured and compared, whom to tell.
// The HTTP schema (src/http/schemas/monitors.ts) validates a request body into this shape, defaults
// filled; the store keeps it and the scheduler, the capture job and the service read it.
import type { Box } from './geometry.js';
import type { Cookie, ImageOptions, PageSpec, ResourceType } from './render-spec.js';
import type { DiffMode } from './diff-mode.js';
import type { RuleEntry } from './notify-rules.js';
import type { Filter } from './filters.js';
import type { LoggedInWhen } from './saved-login.js';

export const NOTIFY_EVENTS = ['change', 'failure', 'capture'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export const STEP_ACTIONS = ['click', 'fill', 'press', 'select', 'waitForSelector', 'waitForTimeout', 'goto'] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/** One thing done on the page after it loads and before it is captured (log in, accept a banner...). */
export interface Step {
  action: StepAction;
  selector?: string;
  value?: string;
  /** fill only: the value is write-only, stored sealed and shown as "••••". */
  secret?: boolean;
  /**
   * A secret fill only: the origin of the page it may be typed into. Default: the origin of the last
   * goto step before it, else of the monitor's url.
   */
  origin?: string;
}

export type { Cookie, ResourceType };

/**
 * How the page is captured: an image render's page and image options, without what a monitor sets
 * itself (url), has no use for (html, baseUrl, output format and quality) or decides otherwise
 * (reducedMotion, "reduce" by default: motion that respects the preference stops, so a carousel is no
 * change); plus the steps run before the capture.
 */
export type CaptureOptions = Omit<PageSpec, 'url' | 'html' | 'baseUrl' | 'files' | 'reducedMotion'> &
  Omit<ImageOptions, 'format' | 'quality'> & {
    reducedMotion: NonNullable<PageSpec['reducedMotion']>;
    steps: Step[];
    /** The request's method; absent: GET. */
    method?: RequestMethod;
    /** POST and PUT: the request's body, write-only (stored sealed, shown as "••••"). */
    body?: string;
    /** The body's Content-Type; absent: application/json when the body parses as JSON, else text/plain. */
    bodyContentType?: string;
    /**
     * Keep the browser state the steps signed in with (sealed) and start later captures from it, running
     * the steps again only when `loggedInWhen` no longer holds (src/monitors/saved-login.ts). Absent in
     * monitors stored before saved logins: false.
     */
    saveLogin?: boolean;
    /** What shows the page is signed in: an element or a text, exactly one. */
    loggedInWhen?: LoggedInWhen;
  };

export const REQUEST_METHODS = ['GET', 'POST', 'PUT'] as const;
export type RequestMethod = (typeof REQUEST_METHODS)[number];

/**
 * An RE2 pattern: a plain string ignores case; `flags` (any of "i", "m", "s"; "" for none) says exactly
 * which flags apply.
 */
export type TextPattern = string | { pattern: string; flags: string };

/** What counts as a change, and what is left out of the comparison. */
export interface DiffOptions {
  mode: DiffMode;
  /** Compare only the text inside this element (its first match). */
  textSelector?: string;
  /** Patterns blanked before texts are compared (a plain string ignores case). */
  ignoreText: TextPattern[];
  threshold: number;
  includeAA: boolean;
  minChangeRatio: number;
  ignoreRegions: Box[];
  ignoreSelectors: string[];
  /** Capture again before reporting a change. */
  confirm: boolean;
  /** What part of what is read is compared, in order. */
  filters: Filter[];
  /** After this many filter_missing captures in a row, monitor.filter_missing is sent. */
  filterMissingAfter: number;
  /** The element holding the product's price, when the page declares no structured data. */
  priceSelector?: string;
  /** The element saying whether the product is in stock, when the page declares no structured data. */
  availabilitySelector?: string;
}

export interface MonitorSettings {
  /** Absent: the monitor is called by its url (see NamedSettings). */
  name?: string;
  url: string;
  schedule: string;
  timezone: string;
  paused: boolean;
  capture: CaptureOptions;
  diff: DiffOptions;
  notifyWhen: RuleEntry[];
  notify: NotifyEvent[];
  webhookUrl?: string;
  /** Channel ids of the monitor's key that its alerts also go to. Absent: the key's default channels; []: none. */
  channels?: string[];
  /** Labels to find, filter and act on monitors by (domain/tags.ts); compared without case. */
  tags: string[];
  retention: { keep: number };
}

/** The settings as stored: a monitor always has a name. */
export type NamedSettings = MonitorSettings & { name: string };

/** A monitor without a name is called by its url. */
export function named(settings: MonitorSettings): NamedSettings {
  return { ...settings, name: settings.name ?? settings.url };
}

/** RFC 7396: objects merge key by key, `null` removes a key, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
      continue;
    }
    // Defined, not assigned: a "__proto__" member of parsed JSON must stay a plain (and then refused)
    // key rather than replace the result's prototype.
    const merged = mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value);
    Object.defineProperty(result, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return result;
}
