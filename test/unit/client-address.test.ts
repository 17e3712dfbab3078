import { describe, expect, it } from 'vitest';
import { clientAddressKey } from '../../src/http/client-address.js';

describe('clientAddressKey', () => {
  it('an IPv4 address is itself', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('an IPv4-mapped IPv6 address is the IPv4 address (both spellings)', () => {
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('IPv6 addresses of one /64 share a key, however they are written', () => {
    const key = clientAddressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(key);
    expect(clientAddressKey('2001:0DB8:0001:0002:0:0:0:abcd')).toBe(key);
  });

  it('the next /64 is another client', () => {
    expect(clientAddressKey('2001:db8:1:3::1')).not.toBe(clientAddressKey('2001:db8:1:2::1'));
    expect(clientAddressKey('::1')).toBe('::/64');
  });

  it('something that is not an address is counted as itself', () => {
    expect(clientAddressKey('not-an-ip')).toBe('not-an-ip');
  });
});
