// Which cookies the monitor's own fetch sends where, and the body's default Content-Type
// (src/content/fetch-content.ts): a browser's rules for domain, path and secure, and a cookie without
// domain or url bound to the monitor's page.
import { describe, expect, it } from 'vitest';
import { cookieHeader, defaultBodyType } from '../../src/content/fetch-content.js';

const PAGE = 'https://shop.example/account/orders';

describe('cookieHeader', () => {
  it('a cookie without domain or url goes to the page host only', () => {
    const cookies = [{ name: 'sid', value: 'a' }];
    expect(cookieHeader(cookies, 'https://shop.example/x', PAGE)).toBe('sid=a');
    expect(cookieHeader(cookies, 'https://cdn.shop.example/x', PAGE)).toBe('');
    expect(cookieHeader(cookies, 'https://elsewhere.example/x', PAGE)).toBe('');
  });

  it('a domain cookie goes to that host and its subdomains, with or without a leading dot', () => {
    for (const domain of ['shop.example', '.shop.example']) {
      const cookies = [{ name: 'd', value: '1', domain }];
      expect(cookieHeader(cookies, 'https://shop.example/', PAGE)).toBe('d=1');
      expect(cookieHeader(cookies, 'https://api.shop.example/', PAGE)).toBe('d=1');
      expect(cookieHeader(cookies, 'https://evilshop.example/', PAGE)).toBe('');
    }
  });

  it('a path matches itself and what is under it, not a longer name', () => {
    const cookies = [{ name: 'p', value: '1', domain: 'shop.example', path: '/account' }];
    expect(cookieHeader(cookies, 'https://shop.example/account', PAGE)).toBe('p=1');
    expect(cookieHeader(cookies, 'https://shop.example/account/orders', PAGE)).toBe('p=1');
    expect(cookieHeader(cookies, 'https://shop.example/accounts', PAGE)).toBe('');
    expect(cookieHeader(cookies, 'https://shop.example/', PAGE)).toBe('');
  });

  it('a secure cookie goes over https only; a url cookie to its own host', () => {
    const secure = [{ name: 's', value: '1', domain: 'shop.example', secure: true }];
    expect(cookieHeader(secure, 'https://shop.example/', PAGE)).toBe('s=1');
    expect(cookieHeader(secure, 'http://shop.example/', PAGE)).toBe('');
    const byUrl = [{ name: 'u', value: '1', url: 'https://api.example/v1/' }];
    expect(cookieHeader(byUrl, 'https://api.example/v1/items', PAGE)).toBe('u=1');
    expect(cookieHeader(byUrl, 'https://shop.example/v1/items', PAGE)).toBe('');
  });

  it('several cookies are joined in order', () => {
    const cookies = [
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ];
    expect(cookieHeader(cookies, PAGE, PAGE)).toBe('a=1; b=2');
  });
});

describe('defaultBodyType', () => {
  it('JSON when the body parses as JSON, else plain UTF-8 text', () => {
    expect(defaultBodyType('{"q":1}')).toBe('application/json');
    expect(defaultBodyType('[1, 2]')).toBe('application/json');
    expect(defaultBodyType('"just a string"')).toBe('application/json');
    expect(defaultBodyType('q=widgets&page=1')).toBe('text/plain; charset=utf-8');
    expect(defaultBodyType('')).toBe('text/plain; charset=utf-8');
  });
});
