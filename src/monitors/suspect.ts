// Failed fetches are not changes: a capture that read a bot check, an empty page, a login form where the
// steps should have signed in, or a page whose text collapsed next to the last good capture's, is
// recorded as `suspect` (never a change, never a baseline) with its reason in words. The signals and
// their thresholds are documented in docs/monitors.md ("Failed fetches are not changes").
import type { PageBlock, PageFacts, PageSigns } from '../domain/page-facts.js';
import type { PageSpec } from '../domain/render-spec.js';
import { mainDocumentFails } from '../render/load/failure-rules.js';
import { mainStatusFailed } from '../render/load/prepare.js';

export interface Suspicion {
  code: 'bot_check' | 'empty_page' | 'login_page' | 'text_collapsed';
  message: string;
}

/**
 * The main-document statuses bot walls answer with (forbidden, too many requests, unavailable): a monitor
 * captures them (RenderOptions.captureStatuses) to look for a challenge, where its rules would fail them.
 */
export const CHALLENGE_STATUSES: readonly number[] = [403, 429, 503];

/**
 * A page of at most this many characters of visible text can be a challenge page (one marker is enough).
 * Challenge pages are short: Cloudflare's block page, the longest known, has about 750.
 */
export const CHALLENGE_MAX_TEXT = 1000;

/** Fewer visible characters than this, no picture or field and no drawn box: an empty page. */
export const EMPTY_PAGE_MIN_TEXT = 5;

/** The text collapsed: under this share of the last good capture's text... */
export const COLLAPSE_FRACTION = 0.1;
/** ...when that capture had at least this many characters of text (a short page varies too much). */
export const COLLAPSE_MIN_BASELINE_TEXT = 500;

/**
 * What challenge pages say, in their title or text (lower case; curly apostrophes read as straight):
 * Cloudflare's interstitial and block page, Google's "unusual traffic", Imperva's and PerimeterX's
 * walls, the plain "Access denied" of Akamai and others, and the usual captcha prompts.
 */
export const CHALLENGE_PHRASES: readonly string[] = [
  'just a moment...',
  'checking your browser',
  'checking if the site connection is secure',
  'enable javascript and cookies to continue',
  'attention required',
  'sorry, you have been blocked',
  'verify you are human',
  'verifying you are human',
  'verify that you are human',
  'human verification',
  'are you a robot',
  "i'm not a robot",
  'i am not a robot',
  'unusual traffic',
  'access denied',
  'pardon our interruption',
  'incapsula incident',
  'press & hold',
  'press and hold to confirm',
];

export interface SuspectInput {
  /** What the capture read (its signs, status and compared text blocks). */
  facts: PageFacts;
  /** The render request (its failure rules decide whether a status fails the capture). */
  spec: PageSpec;
  /** The monitor types a secret in its steps: it means to sign in. */
  signsIn: boolean;
  /** The last good capture's text blocks; undefined without one (or when its text is unknown). */
  baselineBlocks: PageBlock[] | undefined;
}

/**
 * Why the capture looks like a failure rather than the page, or null. A status the monitor's rules fail
 * (captured only to look for a bot check) without a challenge on it fails the capture as before: thrown.
 */
export function suspicionOf({ facts, spec, signsIn, baselineBlocks }: SuspectInput): Suspicion | null {
  const status = facts.status;
  const spared = status !== undefined && CHALLENGE_STATUSES.includes(status) && mainDocumentFails(spec, status);
  const signs = facts.signs;
  if (spared) {
    // The status says the page was refused: any marker says why, however long the page.
    const marker = signs && challengeMarker(signs);
    if (!marker) throw mainStatusFailed(spec, status);
    return { code: 'bot_check', message: `the site answered HTTP ${status} with a bot check (${marker})` };
  }
  if (signs) {
    const marker = signs.textLength <= CHALLENGE_MAX_TEXT ? challengeMarker(signs) : undefined;
    if (marker) return { code: 'bot_check', message: `the page is a bot check (${marker}), not the page itself` };
    if (signsIn && signs.passwordField)
      return {
        code: 'login_page',
        message: 'a password field still shows after the steps that sign in: the sign-in did not work',
      };
    if (signs.textLength < EMPTY_PAGE_MIN_TEXT && signs.media === 0 && !signs.drawn)
      return {
        code: 'empty_page',
        message: `the page is empty: ${signs.textLength} characters of text, no pictures or fields, nothing drawn`,
      };
  }
  const before = baselineBlocks && textLength(baselineBlocks);
  const now = textLength(facts.blocks);
  if (before !== undefined && before >= COLLAPSE_MIN_BASELINE_TEXT && now < before * COLLAPSE_FRACTION)
    return {
      code: 'text_collapsed',
      message: `the text shrank to ${now} characters from ${before} in the last good capture (under ${COLLAPSE_FRACTION * 100}%)`,
    };
  return null;
}

/** The first challenge the page shows: a widget by name, else a phrase quoted; undefined for none. */
export function challengeMarker(signs: PageSigns): string | undefined {
  if (signs.challenges.length > 0) return signs.challenges[0];
  const said = `${signs.title} ${signs.text}`
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\u2026/g, '...');
  const phrase = CHALLENGE_PHRASES.find((p) => said.includes(p));
  return phrase && `"${phrase}"`;
}

/** Characters of compared text, as the blocks hold it (whitespace already collapsed). */
const textLength = (blocks: readonly PageBlock[]): number => blocks.reduce((n, b) => n + b.text.length, 0);
