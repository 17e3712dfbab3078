// How a monitor's capture secrets are masked, sealed, matched when "••••" comes back, and opened.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import {
  hasPlaintextSecrets,
  MASK,
  maskSecrets,
  openSecrets,
  sealPlaintextSecrets,
  sealSecrets,
} from '../../src/monitors/capture-secrets.js';
import { SecretBox } from '../../src/secrets/secret-box.js';

const box = new SecretBox(randomBytes(32));
const ID = 'mon_test';
const plain = {
  fullPage: true,
  headers: { 'X-Token': 'header-secret' },
  cookies: [
    { name: 'sid', value: 'cookie-a', domain: 'example.com', path: '/' },
    { name: 'sid', value: 'cookie-b', url: 'https://other.example/' },
  ],
  httpCredentials: { username: 'u', password: 'password-secret' },
};
const stored = sealSecrets(plain, undefined, box, ID);

function refusal(f: () => unknown): { path: string; message: string }[] {
  try {
    f();
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request') return err.extra.details!;
    throw err;
  }
  throw new Error('expected 400');
}

describe('capture secrets', () => {
  it('mask only the values: names, cookie fields, the username and other options stay', () => {
    expect(maskSecrets(stored)).toEqual({
      fullPage: true,
      headers: { 'X-Token': MASK },
      cookies: [
        { name: 'sid', value: MASK, domain: 'example.com', path: '/' },
        { name: 'sid', value: MASK, url: 'https://other.example/' },
      ],
      httpCredentials: { username: 'u', password: MASK },
    });
  });

  it('are sealed on the way in and open to the values given', () => {
    expect(hasPlaintextSecrets(stored)).toBe(false);
    expect(JSON.stringify(stored)).not.toMatch(/header-secret|cookie-a|cookie-b|password-secret/);
    expect(openSecrets(stored, box, ID)).toEqual(plain);
  });

  it('"••••" keeps the stored value: a header by name in any case, a cookie by name + domain + path + url, the password whatever the username', () => {
    const again = sealSecrets(
      {
        headers: { 'x-token': MASK },
        cookies: [
          { name: 'sid', value: MASK, url: 'https://other.example/' },
          { name: 'sid', value: MASK, domain: 'example.com', path: '/' },
        ],
        httpCredentials: { username: 'renamed', password: MASK },
      },
      stored,
      box,
      ID,
    );
    expect(again.headers['x-token']).toBe(stored.headers['X-Token']);
    expect(again.cookies.map((c) => c.value)).toEqual([stored.cookies[1]!.value, stored.cookies[0]!.value]);
    expect(again.httpCredentials.password).toBe(stored.httpCredentials.password);
    expect(openSecrets(again, box, ID).cookies.map((c) => c.value)).toEqual(['cookie-b', 'cookie-a']);
  });

  it('"••••" with nothing to keep is one 400 detail per field', () => {
    expect(
      refusal(() =>
        sealSecrets(
          {
            headers: { 'X-Other': MASK },
            cookies: [
              { name: 'sid', value: MASK, domain: 'example.com', path: '/app' },
              { name: 'sid', value: 'new' },
            ],
          },
          stored,
          box,
          ID,
        ),
      ).map((d) => d.path),
    ).toEqual(['capture.headers.X-Other', 'capture.cookies.0.value']);
    expect(
      refusal(() => sealSecrets({ httpCredentials: { username: 'u', password: MASK } }, undefined, box, ID)),
    ).toEqual([
      { path: 'capture.httpCredentials.password', message: expect.stringMatching(/send the real value/) as unknown },
    ]);
  });

  it('the start-up pass seals plaintext only, so a second pass changes nothing', () => {
    const legacy = { ...plain, headers: { ...stored.headers, 'X-Plain': 'still-plain' } };
    expect(hasPlaintextSecrets(legacy)).toBe(true);
    const once = sealPlaintextSecrets(legacy, box, ID);
    expect(once.headers['X-Token']).toBe(stored.headers['X-Token']); // already sealed: untouched
    expect(hasPlaintextSecrets(once)).toBe(false);
    expect(sealPlaintextSecrets(once, box, ID)).toEqual(once);
    expect(openSecrets(once, box, ID).headers).toEqual({ 'X-Token': 'header-secret', 'X-Plain': 'still-plain' });
  });

  it('that do not open (another key, another monitor) fail the capture for good with render_failed', () => {
    for (const [otherBox, id] of [
      [new SecretBox(randomBytes(32)), ID],
      [box, 'mon_other'],
    ] as const) {
      try {
        openSecrets(stored, otherBox, id);
        throw new Error('expected a failure');
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect(err).toMatchObject({
          code: 'render_failed',
          message: expect.stringMatching(/cannot be decrypted/) as unknown,
        });
        expect((err as AppError).extra.retryable).toBe(false);
      }
    }
  });
});
