// What the egress proxy accepts as a target, and how it reads the kernel's socket table.
import { describe, expect, it } from 'vitest';
import { connectTarget, forwardTarget } from '../../src/egress/proxy-target.js';
import { decodeProcAddress } from '../../src/egress/socket-owner.js';

describe('connectTarget', () => {
  it.each([
    ['example.com:443', { host: 'example.com', port: 443 }],
    ['8.8.8.8:1', { host: '8.8.8.8', port: 1 }],
    ['8.8.8.8:65535', { host: '8.8.8.8', port: 65535 }],
    ['[::1]:8080', { host: '[::1]', port: 8080 }],
  ])('%s → %o', (authority, target) => {
    expect(connectTarget(authority)).toEqual(target);
  });

  it.each([
    '8.8.8.8:0',
    '8.8.8.8:65536',
    '8.8.8.8:99999',
    '8.8.8.8:123456',
    '8.8.8.8',
    ':443',
    '8.8.8.8:-1',
    '::1:443',
    '',
    undefined,
  ])('%s → refused', (authority) => {
    expect(connectTarget(authority)).toBeUndefined();
  });
});

describe('forwardTarget', () => {
  it('http with the default, the edge and an explicit port', () => {
    expect(forwardTarget('http://a.example/p?q=1')).toEqual({ host: 'a.example', port: 80, path: '/p?q=1' });
    expect(forwardTarget('http://a.example:1/')).toEqual({ host: 'a.example', port: 1, path: '/' });
    expect(forwardTarget('http://a.example:65535/')).toEqual({ host: 'a.example', port: 65535, path: '/' });
  });

  it.each([
    'http://a.example:0/',
    'http://a.example:65536/',
    'http://a.example:99999/',
    'https://a.example/',
    'ftp://a.example/',
    '/relative',
    'garbage',
    undefined,
  ])('%s → refused', (target) => {
    expect(forwardTarget(target)).toBeUndefined();
  });
});

describe('decodeProcAddress', () => {
  it('reads /proc/net/tcp and tcp6 forms', () => {
    expect(decodeProcAddress('0100007F:1F90')).toEqual({ address: '127.0.0.1', port: 8080 });
    expect(decodeProcAddress('00000000000000000000000001000000:0050')).toEqual({ address: '::1', port: 80 });
    expect(decodeProcAddress('0000000000000000FFFF00000100007F:01BB')).toEqual({ address: '::ffff:7f00:1', port: 443 });
  });
});
