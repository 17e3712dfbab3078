// Secret fill steps (capture.steps[].secret) among the monitor secrets: sealed, masked, opened, and
// the rule for a "••••" sent back — it keeps the stored value of the step at the same index only if
// that step still fills the same selector and every other step is unchanged, the page's origin
// is the same and no page code (js, css, waitForFunction) was added or changed.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { MASK, maskSecrets, openSecrets, sameCapture, sealSecrets } from '../../src/monitors/capture-secrets.js';
import { movedSecrets } from '../../src/monitors/secret-binding.js';
import { SecretBox } from '../../src/secrets/secret-box.js';
import type { Step } from '../../src/domain/monitor-settings.js';

const box = new SecretBox(randomBytes(32));
const ID = 'mon_steps';
const click: Step = { action: 'click', selector: '#more' };
const PASSWORD = `pw-${randomBytes(8).toString('hex')}`;

// The domain's step type: these tests build steps as a monitor's settings hold them.

const login = (password: string, extra: Step[] = []): { steps: Step[] } => ({
  steps: [
    { action: 'goto', value: 'https://shop.example/login' },
    { action: 'fill', selector: '#user', value: 'ann' },
    { action: 'fill', selector: '#password', value: password, secret: true },
    { action: 'click', selector: '#submit' },
    ...extra,
  ],
});
const stored = sealSecrets<{ steps: Step[] }>(login(PASSWORD), undefined, box, ID);

function refusal(f: () => unknown): { path: string; message: string }[] {
  try {
    f();
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request') return err.extra.details!;
    throw err;
  }
  throw new Error('expected 400');
}

describe('secret steps', () => {
  it('are sealed on the way in (only the secret one), masked in answers and open to the value given', () => {
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    expect(stored.steps[2]!.value).toMatch(/^enc:v1:/);
    expect(stored.steps[1]!.value).toBe('ann'); // not secret: kept as given, shown as given
    expect(maskSecrets(stored).steps).toEqual(login(MASK).steps);
    expect(openSecrets(stored, box, ID)).toEqual(login(PASSWORD));
  });

  it('"••••" keeps the stored value while every step is the same', () => {
    expect(sealSecrets(login(MASK), stored, box, ID).steps[2]!.value).toBe(stored.steps[2]!.value);
    expect(openSecrets(sealSecrets(login(MASK), stored, box, ID), box, ID).steps[2]!.value).toBe(PASSWORD);
  });

  it.each([
    {
      what: 'another selector',
      steps: (s: Step[]): Step[] => s.with(2, { action: 'fill', selector: '#comment', value: MASK, secret: true }),
    },
    {
      what: 'another index (a step inserted before it)',
      steps: (s: Step[]): Step[] => [{ action: 'click', selector: '#cookie-ok' }, ...s],
    },
    {
      what: 'a changed goto before it',
      steps: (s: Step[]): Step[] => s.with(0, { action: 'goto', value: 'https://shop.example.evil.example/login' }),
    },
    {
      what: 'a changed value before it',
      steps: (s: Step[]): Step[] => s.with(1, { action: 'fill', selector: '#user', value: 'bob' }),
    },
    { what: 'a step removed before it', steps: (s: Step[]): Step[] => s.slice(1) },
    // A step after it can show the secret (a "show password" toggle before the capture) or send it on.
    {
      what: 'a step added after it',
      steps: (s: Step[]): Step[] => [...s, { action: 'click', selector: '.show-password' }],
    },
    {
      what: 'a changed step after it',
      steps: (s: Step[]): Step[] => s.with(3, { action: 'click', selector: '.show-password' }),
    },
  ])('"••••" with $what is 400 naming the step value', ({ steps }) => {
    const found = refusal(() => sealSecrets({ steps: steps(login(MASK).steps) }, stored, box, ID));
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toMatch(/^capture\.steps\.\d+\.value$/);
    expect(found[0]!.message).toMatch(/only while every step is unchanged .*: send the real value/);
  });

  it('"••••" is 400 when the page moved to another origin or page code changed; a new value is taken', () => {
    const origin = movedSecrets(
      { url: 'https://shop.example/', capture: {} },
      { url: 'https://evil.example/', capture: {} },
    );
    expect(refusal(() => sealSecrets(login(MASK), stored, box, ID, origin))).toEqual([
      {
        path: 'capture.steps.2.value',
        message: expect.stringMatching(/only typed into the page it was given for/) as unknown,
      },
    ]);
    const code = movedSecrets(
      { url: 'https://shop.example/', capture: {} },
      { url: 'https://shop.example/', capture: { js: 'fetch("//x/?" + 1)' } },
    );
    expect(refusal(() => sealSecrets(login(MASK), stored, box, ID, code))).toEqual([
      {
        path: 'capture.steps.2.value',
        message: expect.stringMatching(
          /capture\.js changed, and code added to the page can read what a step types/,
        ) as unknown,
      },
    ]);
    expect(openSecrets(sealSecrets(login('new-pw'), stored, box, ID, code), box, ID).steps[2]!.value).toBe('new-pw');
  });

  it('a goto step to a new origin moves headers of scope "all" (they would go along); one to a known origin, or scope "origin", does not', () => {
    const page = 'https://shop.example/';
    const at = (headersScope: 'origin' | 'all', gotos: string[]) => ({
      url: page,
      capture: { headersScope, steps: gotos.map((value) => ({ action: 'goto', value })) },
    });
    expect(movedSecrets(at('all', []), at('all', ['https://evil.example/x'])).headers).toMatch(
      /a goto step now leads to https:\/\/evil\.example, and with headersScope "all"/,
    );
    expect(movedSecrets(at('all', []), at('all', ['https://shop.example/account']))).toEqual({});
    expect(movedSecrets(at('all', ['https://help.example/']), at('all', ['https://help.example/faq']))).toEqual({});
    expect(movedSecrets(at('origin', []), at('origin', ['https://evil.example/x']))).toEqual({});
  });

  it('a "••••" in a fill that is not secret is 400 (it would be typed as is)', () => {
    const steps = login(MASK).steps.with(2, { action: 'fill', selector: '#password', value: MASK });
    expect(refusal(() => sealSecrets({ steps }, stored, box, ID))).toEqual([
      {
        path: 'capture.steps.2.value',
        message: expect.stringMatching(/only stands for a stored value in a step with secret: true/) as unknown,
      },
    ]);
  });

  it('changing a secret value or any step is a capture change (new baseline); sending the masks back is not', () => {
    expect(sameCapture(sealSecrets(login(MASK), stored, box, ID), stored, box, ID)).toBe(true);
    expect(sameCapture(sealSecrets(login(PASSWORD), stored, box, ID), stored, box, ID)).toBe(true); // resealed, same value
    expect(sameCapture(sealSecrets(login('other'), stored, box, ID), stored, box, ID)).toBe(false);
    expect(sameCapture(sealSecrets(login(PASSWORD, [click]), stored, box, ID), stored, box, ID)).toBe(false);
  });
});
