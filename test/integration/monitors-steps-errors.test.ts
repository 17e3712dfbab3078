// The errors of runSteps (src/render/load/steps.ts) on a real Chromium page, without the service: what
// each kind of failure says, that a secret typed by a step is in neither the error nor the cause kept
// for the log (Playwright's own call log names the value a fill types), and that a step with no time
// left is a timeout of the whole render, not a step failure.
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { Budget } from '../../src/render/budget.js';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { runSteps, STEP_RESERVE_MS, type RunStep } from '../../src/render/load/steps.js';

const SECRET = `pw-${Math.random().toString(36).slice(2)}-typed`;
const hooks = { checkUrl: () => Promise.resolve(undefined), failOnHttpError: true };

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  page = await browser.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
/** The page's origin, served by a route (no network): a secret step is typed only into its own origin. */
const ORIGIN = 'http://steps.test';
const FORM =
  '<input id="open"><input id="locked" disabled><div id="text">text</div><select id="s"><option value="a">A</option></select>';
beforeEach(async () => {
  await page.route(`${ORIGIN}/`, (route) => route.fulfill({ contentType: 'text/html', body: FORM }));
  await page.goto(`${ORIGIN}/`);
});

/** The AppError runSteps throws for `steps` with `ms` of budget. */
async function failure(steps: RunStep[], ms = 2000): Promise<AppError> {
  try {
    await runSteps(page, steps, new Budget(ms), hooks);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the steps to fail');
}

/** Everything of the error that could reach a log: message, cause message and stack. */
const logged = (err: AppError) => {
  const cause = err.cause as Error | undefined;
  return [err.message, cause?.message ?? '', cause?.stack ?? ''].join('\n');
};

describe('runSteps errors', () => {
  it('a secret fill that times out is named by step and selector; the secret is in neither the message nor the cause', async () => {
    const err = await failure([
      { action: 'fill', selector: '#open', value: 'x' },
      { action: 'fill', selector: '#locked', value: SECRET, secret: true, origin: ORIGIN },
    ]);
    expect(err.code).toBe('render_failed');
    expect(err.message).toBe(
      'step 1 (fill "#locked"): "#locked" could not be used within the time left (element is not enabled)',
    );
    expect((err.cause as Error).message).toContain('fill("••••")'); // Playwright's log named the value; it is masked
    expect(logged(err)).not.toContain(SECRET);
  });

  it('a secret fill on an element that takes no text fails at once, without the secret', async () => {
    const err = await failure([{ action: 'fill', selector: '#text', value: SECRET, secret: true, origin: ORIGIN }]);
    expect(err.message).toMatch(/^step 0 \(fill "#text"\): Error: Element is not an <input>/);
    expect(logged(err)).not.toContain(SECRET);
  });

  it.each([
    { origin: 'http://elsewhere.test', on: ORIGIN },
    { origin: undefined, on: ORIGIN }, // a secret bound nowhere is typed nowhere
  ])('a secret bound to $origin is not typed into a page of $on', async ({ origin, on }) => {
    const err = await failure([{ action: 'fill', selector: '#open', value: SECRET, secret: true, origin }]);
    expect(err.message).toBe(`step 0 (fill "#open"): the page is on another origin (${on}); the secret was not typed`);
    expect(logged(err)).not.toContain(SECRET);
    expect(await page.inputValue('#open')).toBe('');
  });

  it.each([
    { step: { action: 'click', selector: 'div[' }, says: /^step 0 \(click "div\["\): .*(selector|Unexpected|parse)/i },
    { step: { action: 'press', value: 'NoSuchKey' }, says: /^step 0 \(press "NoSuchKey"\): Unknown key: "NoSuchKey"$/ },
    {
      step: { action: 'waitForSelector', selector: '#absent' },
      says: /^step 0 \(waitForSelector "#absent"\): no element matches "#absent" within the time left$/,
    },
    {
      step: { action: 'waitForSelector', selector: '#open', value: undefined },
      setup: 'document.getElementById("open").style.display = "none"',
      says: /^step 0 \(waitForSelector "#open"\): "#open" never became visible within the time left$/,
    },
  ] as { step: RunStep; setup?: string; says: RegExp }[])(
    '$step.action on a bad target says what happened',
    async ({ step, setup, says }) => {
      if (setup) await page.evaluate(setup);
      const err = await failure([step], 1500);
      expect(err.code).toBe('render_failed');
      expect(err.message).toMatch(says);
    },
  );

  it('a long selector is cut in the message', async () => {
    const selector = `#${'x'.repeat(300)}`;
    const err = await failure([{ action: 'click', selector }], 1000);
    expect(err.message).toBe(
      `step 0 (click "${selector.slice(0, 120)}…"): no element matches "${selector.slice(0, 120)}…" within the time left`,
    );
  });

  it('a step with no time left (the reserve or less) is a timeout of the whole render', async () => {
    const err = await failure([{ action: 'click', selector: '#open' }], STEP_RESERVE_MS);
    expect(err.code).toBe('render_timeout');
    // Just over the reserve, the step is tried (and here succeeds at once).
    await runSteps(page, [{ action: 'click', selector: '#open' }], new Budget(STEP_RESERVE_MS + 1000), hooks);
  });

  it('a goto follows failOnHttpStatusCodes when given (X99 ranges), else failOnHttpError', async () => {
    await page.route(`${ORIGIN}/gone`, (route) =>
      route.fulfill({ status: 410, contentType: 'text/html', body: 'gone' }),
    );
    const goto: RunStep[] = [{ action: 'goto', value: `${ORIGIN}/gone` }];
    const run = (extra: Record<string, unknown>) => runSteps(page, goto, new Budget(5000), { ...hooks, ...extra });
    await expect(run({})).rejects.toThrow(
      'step 0 (goto "http://steps.test/gone"): the page answered HTTP 410 (set failOnHttpError: false to go on anyway)',
    );
    await expect(run({ failOnHttpStatusCodes: [499] })).rejects.toThrow(
      'the page answered HTTP 410 (leave it out of failOnHttpStatusCodes to go on anyway)',
    );
    await run({ failOnHttpStatusCodes: [599] }); // 410 is not in 500–599: the step goes on
    await run({ failOnHttpError: false });
  });
});
