// `capture.steps`: what a monitor does on the page after it has loaded and before it is captured
// (log in, accept a consent banner, open a tab). They share the render's time budget.
import { z } from 'zod';
import { STEP_ACTIONS, type Step } from '../../domain/monitor-settings.js';
import { hasUserinfo } from '../../domain/urls.js';
import { httpUrl, NO_USERINFO } from './request-options.js';
import { MAX_SELECTOR_CHARS, MAX_STEP_VALUE_CHARS, MAX_URL_CHARS } from './string-caps.js';

export const MAX_STEPS = 20;

/** An http(s) origin as the URL standard writes it: no path, query, fragment or credentials. */
const httpOrigin = z
  .string()
  .max(MAX_URL_CHARS)
  .refine((value) => {
    const u = URL.parse(value);
    return u !== null && (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === value.replace(/\/$/, '');
  }, 'an origin such as https://login.example.com (scheme, host and port only)');

/** Which of selector/value each action needs; anything else given is refused rather than ignored. */
const NEEDS: Record<
  (typeof STEP_ACTIONS)[number],
  { selector: 'required' | 'optional' | 'no'; value: 'required' | 'no' }
> = {
  click: { selector: 'required', value: 'no' },
  fill: { selector: 'required', value: 'required' },
  press: { selector: 'optional', value: 'required' },
  select: { selector: 'required', value: 'required' },
  waitForSelector: { selector: 'required', value: 'no' },
  waitForTimeout: { selector: 'no', value: 'required' },
  goto: { selector: 'no', value: 'required' },
};

export const stepSchema = z
  .object({
    action: z.enum(STEP_ACTIONS),
    selector: z
      .string()
      .min(1)
      .max(MAX_SELECTOR_CHARS)
      .optional()
      .describe('The element the step acts on or waits for (CSS or Playwright selector)'),
    value: z
      .string()
      .max(MAX_STEP_VALUE_CHARS)
      .optional()
      .describe(
        'fill: the text; press: the key (e.g. "Enter"); select: the option value; waitForTimeout: ' +
          'milliseconds; goto: an http(s) URL',
      ),
    secret: z.boolean().optional().describe('fill only: the value is write-only, stored encrypted and shown as "••••"'),
    origin: httpOrigin
      .optional()
      .describe(
        'secret fill only: the origin (scheme, host, port) of the page the secret may be typed into, such as ' +
          'https://login.example.com; default: the origin of the last goto step before it, else of the url',
      ),
  })
  .strict()
  .superRefine((step, ctx) => {
    const needs = NEEDS[step.action];
    if (needs.selector === 'required' && step.selector === undefined)
      ctx.addIssue({ code: 'custom', path: ['selector'], message: `${step.action} needs a selector` });
    if (needs.selector === 'no' && step.selector !== undefined)
      ctx.addIssue({ code: 'custom', path: ['selector'], message: `${step.action} takes no selector` });
    if (needs.value === 'required' && step.value === undefined)
      ctx.addIssue({ code: 'custom', path: ['value'], message: `${step.action} needs a value` });
    if (needs.value === 'no' && step.value !== undefined)
      ctx.addIssue({ code: 'custom', path: ['value'], message: `${step.action} takes no value` });
    if (step.secret !== undefined && step.action !== 'fill')
      ctx.addIssue({ code: 'custom', path: ['secret'], message: 'only a fill step can be secret' });
    if (step.origin !== undefined && step.secret !== true)
      ctx.addIssue({ code: 'custom', path: ['origin'], message: 'origin applies only to a secret fill step' });
    if (step.action === 'waitForTimeout' && step.value !== undefined && !/^\d{1,6}$/.test(step.value)) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: 'milliseconds, a whole number from 0 to 999999 (the render timeout still bounds it)',
      });
    }
    if (step.action === 'goto' && step.value !== undefined && !httpUrl('goto value').safeParse(step.value).success) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: hasUserinfo(step.value)
          ? `a goto value ${NO_USERINFO}: log in with fill steps, or give capture.httpCredentials`
          : 'goto needs a full web address starting with http:// or https://, such as https://example.com/',
      });
    }
  });

export const stepsSchema = z
  .array(stepSchema)
  .max(MAX_STEPS)
  .default([])
  .describe(`Up to ${MAX_STEPS} steps run in order after the page loads and before the capture`);

/**
 * The steps' fixed waits (waitForTimeout) must leave time in the render's timeout for everything
 * else, or the capture could never happen: the step whose wait reaches the timeout is refused.
 */
export function stepsFitTimeout(value: { steps: Step[]; timeout: number }, ctx: z.RefinementCtx): void {
  let waited = 0;
  for (const [i, step] of value.steps.entries()) {
    if (step.action !== 'waitForTimeout' || step.value === undefined || !/^\d+$/.test(step.value)) continue;
    waited += Number(step.value);
    if (waited >= value.timeout) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', i, 'value'],
        message:
          `the steps would wait ${waited} ms in all, which leaves nothing of timeout (${value.timeout} ms) for ` +
          `the page and the capture`,
      });
      return;
    }
  }
}
