// A monitor's steps (capture.steps): run once, in order, on the loaded page before the capture — log
// in, accept a consent banner, open a tab. Every wait is bounded by what is left of the render's
// timeout. A step that fails fails the render with an error naming the step; a value a step types
// as a secret never appears in that error or its cause (Playwright's own messages are scrubbed too).
import { statusMatches } from './failure-rules.js';
import { errors as pwErrors, type Page } from 'playwright';
import { AppError, renderFailed, renderTimeout } from '../../errors.js';
import { WAIT_RESERVE_MS, type Budget } from '../budget.js';
import { LoadError } from './network-errors.js';
import { originOf } from '../browser/origin-headers.js';
import { firstLine } from './prepare.js';

export type StepAction = 'click' | 'fill' | 'press' | 'select' | 'waitForSelector' | 'waitForTimeout' | 'goto';

/** A step as the renderer runs it: secrets already opened (`secret` marks a value never to be shown). */
export interface RunStep {
  action: StepAction;
  selector?: string;
  value?: string;
  secret?: boolean;
  /** A secret's: the origin of the only page it may be typed into. */
  origin?: string;
}

export interface StepHooks {
  /** Refuses a goto target the egress policy blocks (url_blocked) before any request is made to it. */
  checkUrl(url: string): Promise<void>;
  /** A goto answered 4xx/5xx fails its step, as the monitor's own url does (capture.failOnHttpError). */
  failOnHttpError: boolean;
  /** Given, it decides instead of failOnHttpError: the statuses that fail (X99 = X00–X99), as capture.failOnHttpStatusCodes. */
  failOnHttpStatusCodes?: number[];
  /** A goto that failed with a network error, said in words (connection refused, host not found...). */
  explainLoad?: (err: LoadError) => AppError;
}

/** Held back from each step's own timeout (see WAIT_RESERVE_MS): a step that waits in vain is explained. */
export const STEP_RESERVE_MS = WAIT_RESERVE_MS;

/** Shown in place of a secret value, as the API shows it. */
const HIDDEN = '••••';
/** A selector or url quoted in an error is cut to this length. */
const QUOTE_MAX = 120;

export async function runSteps(page: Page, steps: RunStep[], budget: Budget, hooks: StepHooks): Promise<void> {
  const scrub = secretScrubber(steps);
  for (const [index, step] of steps.entries()) {
    // Nothing left to try the step with: the render as a whole ran out of time.
    if (budget.remaining() <= STEP_RESERVE_MS) throw renderTimeout(budget.timeoutMs);
    const label = `step ${index} (${describe(step)})`;
    try {
      // A step that sends a form waits for the new document (Playwright's actions wait for the navigations
      // they start); the next step's own wait for its element then finds it on the new page.
      await runStep(page, step, budget, hooks);
    } catch (err) {
      throw await stepError(page, step, label, err, scrub);
    }
  }
}

async function runStep(page: Page, step: RunStep, budget: Budget, hooks: StepHooks): Promise<void> {
  const timeout = budget.remaining(STEP_RESERVE_MS);
  const target = () => page.locator(step.selector!).first();
  const value = step.value ?? '';
  switch (step.action) {
    case 'click':
      return target().click({ timeout });
    case 'fill':
      return step.secret ? fillSecret(page, step, value, timeout) : target().fill(value, { timeout });
    case 'press':
      return step.selector === undefined ? page.keyboard.press(value) : target().press(value, { timeout });
    case 'select':
      return void (await target().selectOption(value, { timeout }));
    case 'waitForSelector':
      return target().waitFor({ state: 'visible', timeout });
    case 'waitForTimeout': {
      const ms = Number(value);
      // Refused at once rather than waited out: the capture after it could not happen anyway.
      if (ms > timeout)
        throw new StepFailure(
          `waits ${ms} ms, more than the ${timeout} ms left of the render's timeout of ${budget.timeoutMs} ms`,
        );
      return page.waitForTimeout(ms);
    }
    case 'goto': {
      await hooks.checkUrl(value);
      const response = await page.goto(value, { waitUntil: 'load', timeout }).catch((err: unknown) => {
        const netError = /net::ERR_[A-Z0-9_]+/.exec(firstLine(err))?.[0];
        if (netError && hooks.explainLoad) throw hooks.explainLoad(new LoadError(value, netError, err));
        throw err;
      });
      const status = response?.status();
      if (status === undefined) return;
      const codes = hooks.failOnHttpStatusCodes;
      if (codes ? statusMatches(codes, status) : hooks.failOnHttpError && status >= 400) {
        const advice = codes
          ? 'leave it out of failOnHttpStatusCodes to go on anyway'
          : 'set failOnHttpError: false to go on anyway';
        throw new StepFailure(`the page answered HTTP ${status} (${advice})`);
      }
      return;
    }
  }
}

/**
 * A secret is typed only into a document of the origin it was given for: a page that redirected
 * elsewhere, or a frame of another origin, gets nothing. The element is held while it is checked and
 * filled, so a document that changes in between takes the element with it and the fill fails.
 */
async function fillSecret(page: Page, step: RunStep, value: string, timeout: number): Promise<void> {
  const deadline = performance.now() + timeout;
  const element = await page.locator(step.selector!).first().elementHandle({ timeout });
  try {
    const frame = await element.ownerFrame();
    const origin = frame ? (originOf(frame.url()) ?? 'null') : 'null';
    if (origin !== step.origin)
      throw new StepFailure(`the page is on another origin (${origin}); the secret was not typed`);
    await element.fill(value, { timeout: Math.max(1, deadline - performance.now()) });
  } finally {
    await element.dispose().catch(() => undefined);
  }
}

/** A step's own verdict, worded for the caller. */
class StepFailure extends Error {}

async function stepError(
  page: Page,
  step: RunStep,
  label: string,
  err: unknown,
  scrub: (text: string) => string,
): Promise<AppError> {
  if (err instanceof AppError) {
    // url_blocked says only "not allowed" (its reason is logged); a timeout of the whole render stays one.
    if (err.code === 'url_blocked' || err.code === 'render_timeout') return err;
    return renderFailed(`${label}: ${scrub(err.message)}`, scrubbed(err, scrub));
  }
  if (err instanceof StepFailure) return renderFailed(`${label}: ${err.message}`);
  if (err instanceof pwErrors.TimeoutError)
    return renderFailed(`${label}: ${await whyTimedOut(page, step, err, scrub)}`, scrubbed(err, scrub));
  return renderFailed(`${label}: ${scrub(firstLine(err))}`, scrubbed(err, scrub));
}

/** What the step was waiting for when its time ran out, from the page as it is now and Playwright's log. */
async function whyTimedOut(page: Page, step: RunStep, err: Error, scrub: (text: string) => string): Promise<string> {
  if (step.action === 'goto') return 'the page did not load within the time left';
  if (step.selector === undefined) return 'did not finish within the time left';
  const matches = await page
    .locator(step.selector)
    .count()
    .catch(() => undefined);
  if (matches === 0) return `no element matches ${quote(step.selector)} within the time left`;
  if (step.action === 'waitForSelector') return `${quote(step.selector)} never became visible within the time left`;
  // Playwright's call log ends with what held the action back ("element is not visible", "did not find some options").
  const last = lastLogLine(err.message);
  return `${quote(step.selector)} could not be used within the time left${last ? ` (${scrub(last)})` : ''}`;
}

/** Call-log lines that say what Playwright did, not what held it back. */
const PROGRESS =
  /^(retrying|waiting \d+ ?ms|waiting for|attempting|locator resolved|scrolling|done|performing|\w+\(|elementHandle\.)/;

function lastLogLine(message: string): string | undefined {
  const log = message.split('Call log:')[1];
  const lines = (log ?? '')
    // Playwright colours its call log with ANSI escapes, which start with the ESC control character.
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[\d+m/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*(-\s*)?(\d+\s*×\s*)?/, '').trim())
    .filter((l) => l.length > 0 && !PROGRESS.test(l));
  const line = lines.at(-1);
  return line && line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function describe(step: RunStep): string {
  switch (step.action) {
    case 'press':
      return `press ${quote(step.value ?? '')}${step.selector === undefined ? '' : ` on ${quote(step.selector)}`}`;
    case 'waitForTimeout':
      return `waitForTimeout ${step.value} ms`;
    case 'goto':
      return `goto ${quote(step.value ?? '')}`;
    // A fill's or select's value is never quoted: it may be a secret, and it is the user's own anyway.
    default:
      return `${step.action} ${quote(step.selector ?? '')}`;
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);
}

/**
 * Replaces every secret step value in a text with the mask, longest first (so one secret inside another is
 * fully hidden). Also the forms a secret takes elsewhere: Playwright's call log colours its lines and quotes a
 * multi-line value line by line (the colour codes go, each line is hidden on its own), and page text has its
 * whitespace collapsed. Used for step errors here and for the text a capture reads from the page.
 */
export function secretScrubber(steps: RunStep[]): (text: string) => string {
  const values = steps.filter((s) => s.secret && s.value).map((s) => s.value!);
  const lines = values.flatMap((v) => (v.includes('\n') ? v.split('\n').filter((l) => l.trim().length > 0) : []));
  const collapsed = values.map((v) => v.replace(/\s+/g, ' ').trim()).filter((v) => v.length > 0);
  const secrets = [...new Set([...values, ...lines, ...collapsed])].sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (text) => text;
  // eslint-disable-next-line no-control-regex
  return (text) => secrets.reduce((out, secret) => out.split(secret).join(HIDDEN), text.replace(/\u001b\[\d+m/g, ''));
}

/** The cause kept for the log: the original's message and stack with the secrets taken out. */
function scrubbed(err: unknown, scrub: (text: string) => string): Error {
  const source = err instanceof Error ? err : new Error(String(err));
  const copy = new Error(scrub(source.message));
  copy.name = source.name;
  copy.stack = source.stack && scrub(source.stack);
  return copy;
}
