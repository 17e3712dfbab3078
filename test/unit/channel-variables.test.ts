// Template variables (src/channels/variables.ts) from the event data a webhook receiver gets.
import { describe, expect, it } from 'vitest';
import { alertVariables, messageVariables } from '../../src/channels/variables.js';
import type { AlertItem } from '../../src/channels/deliver.js';
import { wholeWords } from '../../src/channels/message-text.js';

const changed: AlertItem = {
  type: 'monitor.changed',
  timestamp: '2026-11-28T10:00:01.000Z',
  data: {
    monitorId: 'mon_abc',
    captureId: 'cap_new',
    url: 'https://shop.example/p',
    status: 'succeeded',
    reason: 'schedule',
    takenAt: '2026-11-28T10:00:00.000Z',
    changed: true,
    baselineId: 'cap_old',
    diffPixels: 120,
    diffRatio: 0.0123,
    regions: [{ x: 1, y: 2, width: 3, height: 4, pixels: 120 }],
    summary: 'Price: $24.99 → $19.99',
    textChanges: [
      {
        kind: 'changed',
        before: 'Price: $24.99',
        after: 'Price: $19.99',
        selector: 'p.price',
        box: { x: 0, y: 0, width: 10, height: 10 },
        words: [{ value: 'Price: ' }, { value: '$24.99', removed: true }, { value: '$19.99', added: true }],
      },
      { kind: 'added', before: null, after: 'New colour', selector: null, box: null },
    ],
    textChangesTotal: 14,
    conditions: [{ index: 0, path: '0', selector: null, test: 'priceBelow', met: true, value: 19.99 }],
    conditionErrors: [],
    conditionsMet: true,
    price: 19.99,
    currency: 'USD',
    availability: 'InStock',
    imageUrl: 'http://10.0.0.5:3000/api/captures/cap_new/image',
    diffUrl: 'http://10.0.0.5:3000/api/captures/cap_new/diff',
  },
};

describe('alertVariables', () => {
  it('gives the documented variables of a change', () => {
    const v = alertVariables(changed, { name: 'Pricing page', url: 'https://shop.example/p', tags: ['shop'] }, '');
    expect(v).toMatchObject({
      event: 'monitor.changed',
      verdict: 'Changed',
      monitor: { id: 'mon_abc', name: 'Pricing page', url: 'https://shop.example/p', tags: ['shop'] },
      capture: {
        id: 'cap_new',
        status: 'succeeded',
        takenAt: '2026-11-28T10:00:00.000Z',
        changed: true,
        diffRatio: 0.0123,
        reason: 'schedule',
      },
      summary: 'Price: $24.99 → $19.99',
      changesTotal: 14,
      price: { price: 19.99, currency: 'USD', availability: 'InStock' },
      conditions: [{ test: 'priceBelow', met: true }],
    });
    expect(v.changes).toEqual([
      {
        kind: 'changed',
        before: 'Price: $24.99',
        after: 'Price: $19.99',
        selector: 'p.price',
        words: [{ value: 'Price: ' }, { value: '$24.99', removed: true }, { value: '$19.99', added: true }],
      },
      { kind: 'added', before: null, after: 'New colour', selector: null },
    ]);
    expect(v.error).toBeUndefined();
  });

  it('links to the dashboard at the address the event was made with, or at publicUrl when set', () => {
    expect(alertVariables(changed, undefined, '').links).toEqual({
      monitor: 'http://10.0.0.5:3000/monitors#/monitors/mon_abc',
      capture: 'http://10.0.0.5:3000/monitors#/monitors/mon_abc/captures/cap_new',
      image: 'http://10.0.0.5:3000/api/captures/cap_new/image',
      diff: 'http://10.0.0.5:3000/api/captures/cap_new/diff',
    });
    expect(alertVariables(changed, undefined, 'https://watch.example/').links.capture).toBe(
      'https://watch.example/monitors#/monitors/mon_abc/captures/cap_new',
    );
  });

  it('falls back to the event for a monitor deleted since (name = its url)', () => {
    expect(alertVariables(changed, undefined, '').monitor).toEqual({
      id: 'mon_abc',
      name: 'https://shop.example/p',
      url: 'https://shop.example/p',
      tags: [],
    });
  });

  it('gives a failure its error and verdict, and no price when none was read', () => {
    const failed: AlertItem = {
      type: 'capture.failed',
      timestamp: changed.timestamp,
      data: {
        monitorId: 'mon_abc',
        captureId: 'cap_f',
        url: 'https://shop.example/p',
        status: 'failed',
        reason: 'schedule',
        takenAt: changed.timestamp,
        error: { code: 'render_timeout', message: 'the page did not load in 30 s' },
      },
    };
    const v = alertVariables(failed, undefined, '');
    expect(v.verdict).toBe('Capture failed: the page did not load in 30 s');
    expect(v.error).toEqual({ code: 'render_timeout', message: 'the page did not load in 30 s' });
    expect(v.price).toBeUndefined();
    expect(v.changes).toEqual([]);
    expect(v.links).toEqual({}); // no image URL to learn the address from, no publicUrl
  });

  it('gives channel.test its message and no monitor', () => {
    const v = alertVariables(
      {
        type: 'channel.test' as AlertItem['type'],
        timestamp: changed.timestamp,
        data: { channelId: 'chn_1', name: 'Ops', test: true, message: 'A test message.' },
      },
      undefined,
      '',
    );
    expect(v).toMatchObject({ event: 'channel.test', verdict: 'Test message', message: 'A test message.', test: true });
    expect(v.monitor).toBeUndefined();
  });
});

describe('messageVariables', () => {
  it('puts one alert at the top level and in alerts; a digest in alerts only, with its count', () => {
    const one = alertVariables(changed, undefined, '');
    expect(messageVariables([one])).toMatchObject({ ...one, alerts: [one], count: 1, digest: false });
    const digest = messageVariables([one, one, one]);
    expect(digest).toEqual({ event: 'digest', alerts: [one, one, one], count: 3, digest: true });
  });
});

describe('wholeWords', () => {
  it('widens a change to whole words on both sides', () => {
    expect(
      wholeWords([
        { value: 'Price: $' },
        { value: '24', removed: true },
        { value: '19', added: true },
        { value: '.99 now' },
      ]),
    ).toEqual([
      { value: 'Price: ' },
      { value: '$24.99', removed: true },
      { value: '$19.99', added: true },
      { value: ' now' },
    ]);
    expect(wholeWords([{ value: 'a ' }, { value: 'b', added: true }, { value: ' c' }])).toEqual([
      { value: 'a ' },
      { value: 'b', added: true },
      { value: ' c' },
    ]);
  });
});
