// Saved logins (capture.saveLogin): what a monitor keeps of the browser state its steps signed in with,
// and what a capture did with it. The state is Playwright's storage state (cookies and localStorage),
// limited to the monitored origins; src/monitors/saved-login.ts decides, src/stores/logins.ts keeps it.

/** What shows a page is signed in: an element (`selector`) or a text on the page (`text`), exactly one. */
export interface LoggedInWhen {
  selector?: string;
  text?: string;
}

/**
 * What a capture did with the monitor's saved login:
 * - `saved`: the steps ran (no saved login, or it no longer signed in) and the state they left was saved;
 * - `reused`: it started from the saved login, loggedInWhen held, the steps were skipped;
 * - `expired`: the saved login was older than monitors.loginTtlHours; the steps ran and a new one was saved;
 * - `refused`: the steps ran but their state was too large to keep (nothing saved).
 */
export const LOGIN_OUTCOMES = ['saved', 'reused', 'expired', 'refused'] as const;
export type LoginOutcome = (typeof LOGIN_OUTCOMES)[number];

export interface StoredCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

/** Playwright's storage state shape (BrowserContext.storageState()), limited to what is kept. */
export interface LoginState {
  cookies: StoredCookie[];
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}
