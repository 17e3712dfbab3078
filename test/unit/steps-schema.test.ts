// capture.steps in the monitor body (src/http/schemas/steps.ts): what each action needs and refuses,
// the 20-step limit at and over its edge, and the fixed waits bounded by capture.timeout — every
// refusal names the field at fault as the 400 invalid_request sends it (capture.steps.N.field).
import { describe, expect, it } from 'vitest';
import { monitorSchema } from '../../src/http/schemas/monitors.js';
import { MAX_STEPS } from '../../src/http/schemas/steps.js';
import { refusalDetails } from '../helpers/refusal.js';

const schema = monitorSchema({
  maxFullPageHeight: 16_384,
  maxImagePixels: 50_000_000,
  maxTimeoutMs: 120_000,
  maxRetention: 1000,
  minIntervalSeconds: 1,
});
const withSteps = (steps: unknown[], capture: Record<string, unknown> = {}) => ({
  url: 'https://example.com/',
  schedule: '0 0 1 1 *',
  capture: { ...capture, steps },
});

function refused(steps: unknown[], capture?: Record<string, unknown>): { path: string; message: string }[] {
  const body = withSteps(steps, capture);
  expect(schema.safeParse(body).success, `expected ${JSON.stringify(steps)} to be refused`).toBe(false);
  return refusalDetails(schema, body);
}

function accepted(steps: unknown[], capture?: Record<string, unknown>) {
  const result = schema.safeParse(withSteps(steps, capture));
  expect(result.success, result.success ? '' : JSON.stringify(result.error.issues)).toBe(true);
  return result.data!.capture.steps;
}

const click = { action: 'click', selector: '#ok' };

describe('capture.steps schema', () => {
  it('takes every action with what it needs, and defaults to no steps', () => {
    expect(schema.parse({ url: 'https://example.com/', schedule: '0 0 1 1 *' }).capture.steps).toEqual([]);
    const all = [
      click,
      { action: 'fill', selector: '#user', value: 'ann' },
      { action: 'fill', selector: '#password', value: 'pw', secret: true },
      { action: 'press', value: 'Enter' },
      { action: 'press', selector: '#q', value: 'Tab' },
      { action: 'select', selector: '#country', value: 'de' },
      { action: 'waitForSelector', selector: 'text=Welcome' },
      { action: 'waitForTimeout', value: '250' },
      { action: 'goto', value: 'https://example.com/account' },
    ];
    expect(accepted(all)).toEqual(all);
  });

  it(`takes ${MAX_STEPS} steps and refuses ${MAX_STEPS + 1}, naming capture.steps`, () => {
    expect(accepted(Array(MAX_STEPS).fill(click))).toHaveLength(MAX_STEPS);
    const found = refused(Array(MAX_STEPS + 1).fill(click));
    expect(found).toEqual([{ path: 'capture.steps', message: expect.stringContaining(String(MAX_STEPS)) as unknown }]);
  });

  it.each([
    { step: { action: 'fill', selector: '#user' }, path: 'capture.steps.0.value', says: 'fill needs a value' },
    { step: { action: 'click' }, path: 'capture.steps.0.selector', says: 'click needs a selector' },
    {
      step: { action: 'click', selector: '#a', value: 'x' },
      path: 'capture.steps.0.value',
      says: 'click takes no value',
    },
    { step: { action: 'select', selector: '#a' }, path: 'capture.steps.0.value', says: 'select needs a value' },
    { step: { action: 'press' }, path: 'capture.steps.0.value', says: 'press needs a value' },
    { step: { action: 'waitForSelector' }, path: 'capture.steps.0.selector', says: 'waitForSelector needs a selector' },
    {
      step: { action: 'waitForTimeout', value: '100', selector: '#a' },
      path: 'capture.steps.0.selector',
      says: 'takes no selector',
    },
    { step: { action: 'waitForTimeout', value: 'soon' }, path: 'capture.steps.0.value', says: 'milliseconds' },
    { step: { action: 'waitForTimeout', value: '-5' }, path: 'capture.steps.0.value', says: 'milliseconds' },
    {
      step: { action: 'goto', value: '/relative' },
      path: 'capture.steps.0.value',
      says: 'a full web address starting with http:// or https://',
    },
    {
      step: { action: 'goto', value: 'file:///etc/passwd' },
      path: 'capture.steps.0.value',
      says: 'a full web address starting with http:// or https://',
    },
    {
      step: { action: 'goto', value: 'https://ann:pw@example.com/' },
      path: 'capture.steps.0.value',
      says: 'a goto value may not hold a user name or password (user:password@host)',
    },
    {
      step: { action: 'fill', selector: '#a', value: 'x', origin: 'https://example.com' },
      path: 'capture.steps.0.origin',
      says: 'origin applies only to a secret fill step',
    },
    {
      step: { action: 'fill', selector: '#a', value: 'x', secret: true, origin: 'https://example.com/login' },
      path: 'capture.steps.0.origin',
      says: 'an origin such as https://login.example.com',
    },
    {
      step: { action: 'fill', selector: '#a', value: 'x', secret: true, origin: 'file:///etc' },
      path: 'capture.steps.0.origin',
      says: 'an origin such as https://login.example.com',
    },
    {
      step: { action: 'goto', selector: '#a', value: 'https://example.com/' },
      path: 'capture.steps.0.selector',
      says: 'takes no selector',
    },
    {
      step: { action: 'click', selector: '#a', secret: true },
      path: 'capture.steps.0.secret',
      says: 'only a fill step can be secret',
    },
    { step: { action: 'click', selector: '' }, path: 'capture.steps.0.selector', says: '' },
    { step: { action: 'hover', selector: '#a' }, path: 'capture.steps.0.action', says: '' },
    { step: { action: 'click', selector: '#a', wait: 1 }, path: 'capture.steps.0.wait', says: '' },
  ])('$step → 400 at $path', ({ step, path, says }) => {
    const found = refused([step]);
    expect(found.map((d) => d.path)).toContain(path);
    expect(found.find((d) => d.path === path)!.message).toContain(says);
  });

  it('takes an origin for a secret fill, with or without the trailing slash', () => {
    for (const origin of ['https://login.example.com', 'http://127.0.0.2:8080/']) {
      const step = { action: 'fill', selector: '#pw', value: 'x', secret: true, origin };
      expect(accepted([step])).toEqual([step]);
    }
  });

  it('names the index of the bad step among good ones', () => {
    const found = refused([click, click, { action: 'fill', selector: '#p' }]);
    expect(found).toEqual([{ path: 'capture.steps.2.value', message: 'fill needs a value' }]);
  });

  it('refuses fixed waits that use up capture.timeout, at the step that reaches it; just under it passes', () => {
    const wait = (ms: number) => ({ action: 'waitForTimeout', value: String(ms) });
    expect(accepted([wait(2000), click, wait(2999)], { timeout: 5000 })).toHaveLength(3);
    const found = refused([wait(2000), click, wait(3000)], { timeout: 5000 });
    expect(found).toEqual([{ path: 'capture.steps.2.value', message: expect.stringContaining('5000 ms') as unknown }]);
    // The default timeout (30 s) bounds them too.
    expect(refused([wait(30_000)])[0]!.path).toBe('capture.steps.0.value');
    expect(accepted([wait(29_999)])).toHaveLength(1);
  });
});
