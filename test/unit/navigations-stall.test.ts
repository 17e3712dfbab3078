// MainFrameNavigations over a scripted page (the events Playwright emits, nothing else): a capture that
// times out on a page that has moved itself to another document is tried again with a longer timeout,
// as a stalled Chromium screenshot needs (see STALLED_CAPTURE_MS); on a page that never moved, or once
// the tries are spent, the timeout stands.
import { EventEmitter } from 'node:events';
import { errors as pwErrors, type Page } from 'playwright';
import { expect, it } from 'vitest';
import { Budget } from '../../src/render/budget.js';
import { MainFrameNavigations, STALLED_CAPTURE_MS } from '../../src/render/load/navigations.js';

/** A page whose main frame can be navigated by the test: a document request, then its commit. */
function scriptedPage() {
  const page = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const mainFrame = {};
  Object.assign(page, {
    mainFrame: () => mainFrame,
    isClosed: () => false,
    waitForLoadState: () => Promise.resolve(),
  });
  const moveItself = () => {
    const request = { isNavigationRequest: () => true, frame: () => mainFrame };
    page.emit('request', request);
    page.emit('framenavigated', mainFrame);
  };
  return { page: page as unknown as Page, moveItself };
}

const timeout = () => new pwErrors.TimeoutError('page.screenshot: Timeout exceeded');

it('on a page that moved itself, a timed-out capture is tried again, each try twice as long', async () => {
  const { page, moveItself } = scriptedPage();
  const navigations = new MainFrameNavigations(page);
  const budget = new Budget(30_000);
  moveItself(); // a meta refresh after load
  const timeouts: number[] = [];
  const value = await navigations.untilSettled(budget, () => {
    timeouts.push(navigations.stepTimeout(budget));
    return timeouts.length < 3 ? Promise.reject(timeout()) : Promise.resolve('captured');
  });
  expect(value).toBe('captured');
  expect(navigations.stalls).toBe(2);
  expect(timeouts).toEqual([STALLED_CAPTURE_MS, 2 * STALLED_CAPTURE_MS, 4 * STALLED_CAPTURE_MS]);
});

it('on a page that never moved, the step has the whole budget and its timeout stands', async () => {
  const { page } = scriptedPage();
  const navigations = new MainFrameNavigations(page);
  const budget = new Budget(30_000);
  expect(navigations.stepTimeout(budget)).toBeGreaterThan(29_000);
  let tries = 0;
  const err = timeout();
  await expect(
    navigations.untilSettled(budget, () => {
      tries++;
      return Promise.reject(err);
    }),
  ).rejects.toBe(err);
  expect(tries).toBe(1);
});

it('a capture that keeps timing out fails after a bounded number of tries', async () => {
  const { page, moveItself } = scriptedPage();
  const navigations = new MainFrameNavigations(page);
  moveItself();
  let tries = 0;
  await expect(
    navigations.untilSettled(new Budget(30_000), () => {
      tries++;
      return Promise.reject(timeout());
    }),
  ).rejects.toBeInstanceOf(pwErrors.TimeoutError);
  expect(tries).toBe(5); // the first try and four more
});
