// capture.saveLogin and capture.loggedInWhen: a monitor that keeps what its steps signed in with, and
// the probe that says a page loaded from it is still signed in (src/monitors/saved-login.ts).
import { z } from 'zod';
import type { Step } from '../../domain/monitor-settings.js';
import { MAX_SEARCH_TEXT_CHARS, MAX_SELECTOR_CHARS } from './string-caps.js';

export const loggedInWhenSchema = z
  .object({
    selector: z
      .string()
      .min(1)
      .max(MAX_SELECTOR_CHARS)
      .optional()
      .describe('An element (CSS or Playwright selector) present only when signed in'),
    text: z
      .string()
      .min(1)
      .max(MAX_SEARCH_TEXT_CHARS)
      .optional()
      .describe('A text shown on the page only when signed in (e.g. "Signed in as")'),
  })
  .strict()
  .superRefine((probe, ctx) => {
    if ((probe.selector === undefined) === (probe.text === undefined))
      ctx.addIssue({ code: 'custom', message: 'give exactly one of selector and text' });
  })
  .describe(
    'What shows the page is signed in (exactly one of selector and text): a capture that starts from the ' +
      'saved login checks it, and runs the steps again when it does not hold',
  );

/** A saved login is what steps signed in with, checked by loggedInWhen, on a page the browser loads. */
export function savedLoginRules(
  value: { saveLogin: boolean; steps: Step[]; loggedInWhen?: unknown; method?: string },
  ctx: z.RefinementCtx,
): void {
  if (!value.saveLogin) return;
  if (value.steps.length === 0)
    ctx.addIssue({
      code: 'custom',
      path: ['saveLogin'],
      message: 'saveLogin keeps what the steps signed in with: add capture.steps that sign in',
    });
  if (value.loggedInWhen === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['loggedInWhen'],
      message: 'saveLogin needs loggedInWhen ({selector} or {text}) to tell whether the saved login still holds',
    });
  if ((value.method ?? 'GET') !== 'GET')
    ctx.addIssue({
      code: 'custom',
      path: ['saveLogin'],
      message: 'saveLogin works with pages the browser loads (method GET)',
    });
}
