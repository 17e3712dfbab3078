// A monitor's saved login in the renderer (capture.saveLogin): the render starts in a single-use context
// made from the saved state — never on a warm page, which the next render would inherit it from — and
// checks loggedInWhen on the loaded page before deciding to skip the steps.
import { errors as pwErrors, type BrowserContextOptions, type Page } from 'playwright';
import type { RenderSpec } from '../../domain/render-spec.js';
import type { LoggedInWhen, LoginState } from '../../domain/saved-login.js';
import type { Budget } from '../budget.js';
import { ownContextOptions } from '../browser/own-context.js';
import { deviceScaleFor, viewportFor } from '../browser/viewport.js';

export interface LoginRequest {
  /** The saved state to start from; absent: start clean, run the steps and hand back what they left. */
  state?: LoginState;
  loggedInWhen: LoggedInWhen;
}

/**
 * How long loggedInWhen is waited for on the loaded page: a signed-in page may draw its name from a
 * script just after load. A page that shows it later than this is taken as signed out (the steps run).
 */
export const LOGIN_PROBE_MS = 2000;

/** The saved state did not sign in (loggedInWhen did not hold): start again from a clean context. */
export class LoginNotHeld extends Error {
  constructor() {
    super('the saved login no longer signs in');
  }
}

/**
 * The single-use context of a render with a saved login: the options its request needs (own-context.ts)
 * plus the state. A render that keeps a login always gets one, even starting clean: the state its steps
 * leave is read from it, and it is closed (with everything in it) when the render ends.
 */
export function loginContextOptions(req: RenderSpec, login: LoginRequest): BrowserContextOptions {
  const own = ownContextOptions(req) ?? { viewport: viewportFor(req), deviceScaleFactor: deviceScaleFor(req) };
  return { ...own, ...(login.state && { storageState: login.state }) };
}

/** Whether the page shows loggedInWhen (its selector attached, or its text visible) within LOGIN_PROBE_MS. */
export async function loginHolds(page: Page, when: LoggedInWhen, budget: Budget): Promise<boolean> {
  const timeout = Math.min(LOGIN_PROBE_MS, budget.remaining());
  const target = when.selector !== undefined ? page.locator(when.selector) : page.getByText(when.text!);
  try {
    await target.first().waitFor({ state: when.selector !== undefined ? 'attached' : 'visible', timeout });
    return true;
  } catch (err) {
    if (err instanceof pwErrors.TimeoutError) return false;
    throw err;
  }
}

/** What the context holds now: the state the steps signed in with (limited later, saved-login.ts in monitors). */
export async function takeState(page: Page): Promise<LoginState> {
  return page.context().storageState();
}
