import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressKey, INVALID_ADDRESS_KEY, lookupAddressKey, viewerAddressIp } from '../../shared/domain/address-key';

const full = (groups: number[]): string => groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
/** Node's own canonical (compressed, lower-case) spelling of an IPv6 address, an oracle independent of ours. */
const canonical = (groups: number[]): string => new URL(`http://[${full(groups)}]/`).hostname.slice(1, -1);
const group = fc.integer({ min: 0, max: 0xffff });
const groups = fc.array(group, { minLength: 8, maxLength: 8 });

describe('address key (per-address limits)', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey(' 198.51.100.255 ')).toBe('198.51.100.255');
    expect(addressKey('0.0.0.0')).toBe('0.0.0.0');
  });

  it('keys an IPv6 address by its /64, whatever its spelling', () => {
    const key = '2001:db8:0:1::/64';
    for (const spelling of [
      '2001:0db8:0000:0001:0000:0000:0000:0001',
      '2001:db8:0:1::1',
      '2001:DB8:0:1:FFFF:FFFF:FFFF:FFFF',
      '2001:db8::1:abcd:0:0:7',
      '[2001:db8:0:1::2]',
    ]) {
      expect(addressKey(spelling), spelling).toBe(key);
    }
    expect(addressKey('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8::/64');
    expect(addressKey('2001:db8:0:0:1::1')).toBe('2001:db8::/64');
    expect(addressKey('::1')).toBe('::/64');
    expect(addressKey('::')).toBe('::/64');
    expect(addressKey('1::')).toBe('1::/64');
  });

  it('keys an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(addressKey('0:0:0:0:0:ffff:203.0.113.7')).toBe('203.0.113.7');
    // Not mapped: an IPv4 tail after another prefix stays IPv6.
    expect(addressKey('64:ff9b::203.0.113.7')).toBe('64:ff9b::/64');
  });

  it('ignores a zone id', () => {
    expect(addressKey('fe80::1%eth0')).toBe('fe80::/64');
    expect(addressKey('fe80::abcd:1%25')).toBe('fe80::/64');
  });

  it('puts every unparsable address under one shared key', () => {
    for (const garbage of [
      '',
      'localhost',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.-4',
      '2001:db8::1::2',
      '2001:db8:0:0:0:0:0:0:1',
      '12345::',
      'g::1',
      ':::',
      '1.2.3.4::',
      '::1.2.3',
      'unknown, 1.2.3.4',
    ]) {
      expect(addressKey(garbage), garbage).toBe(INVALID_ADDRESS_KEY);
    }
  });

  it('gives every address of one /64 the same key, and different /64s different keys (property)', () => {
    fc.assert(
      fc.property(groups, groups, (a, b) => {
        if (a[5] === 0xffff && a.slice(0, 5).every((g) => g === 0)) return; // mapped IPv4, covered above
        const sameNet = [...a.slice(0, 4), ...b.slice(4)];
        expect(addressKey(full(a))).toBe(addressKey(canonical(a)));
        expect(addressKey(canonical(sameNet))).toBe(addressKey(full(a)));
        const otherNet = [...a.slice(0, 3), (a[3] + 1) % 0x10000, ...a.slice(4)];
        expect(addressKey(full(otherNet))).not.toBe(addressKey(full(a)));
        expect(addressKey(full(a))).toMatch(/^[0-9a-f:]+::\/64$/);
      }),
    );
  });

  it('keys the unknown-key meter by the /48 of an IPv6 address, IPv4 and garbage as before (issue 23 point 4)', () => {
    const of = (ip: string) => lookupAddressKey(addressKey(ip));
    expect(of('2001:db8:0:1::1')).toBe('2001:db8::/48');
    expect(of('2001:db8:0:ffff::1')).toBe('2001:db8::/48');
    expect(of('2001:db8:5:1::1')).toBe('2001:db8:5::/48');
    expect(of('2001:db8:6:1::1')).toBe('2001:db8:6::/48');
    expect(of('2001:0:0:1::1')).toBe('2001::/48');
    expect(of('0:0:7:1::1')).toBe('0:0:7::/48');
    expect(of('::1')).toBe('::/48');
    expect(of('203.0.113.7')).toBe('203.0.113.7');
    expect(of('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(of('garbage')).toBe(INVALID_ADDRESS_KEY);
    // The per-address API limits keep the /64.
    expect(addressKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
  });

  it('gives every address of one /48 the same lookup key, and different /48s different ones (property, against Node’s parser)', () => {
    fc.assert(
      fc.property(groups, groups, (a, b) => {
        if (a[5] === 0xffff && a.slice(0, 5).every((g) => g === 0)) return; // mapped IPv4, covered above
        const of = (g: number[]) => lookupAddressKey(addressKey(full(g)));
        expect(of(a)).toBe(`${canonical([...a.slice(0, 3), 0, 0, 0, 0, 0])}/48`);
        const sameNet = [...a.slice(0, 3), ...b.slice(3)];
        if (!(sameNet[5] === 0xffff && sameNet.slice(0, 5).every((g) => g === 0))) expect(of(sameNet)).toBe(of(a));
        expect(of([...a.slice(0, 2), (a[2] + 1) % 0x10000, ...a.slice(3)])).not.toBe(of(a));
      }),
    );
  });

  it('reads the IP of CloudFront-Viewer-Address (address:port, IPv6 without brackets)', () => {
    expect(viewerAddressIp('198.51.100.10:46532')).toBe('198.51.100.10');
    expect(viewerAddressIp('2001:db8::1:443')).toBe('2001:db8::1');
    expect(viewerAddressIp('198.51.100.10')).toBe('198.51.100.10');
  });
});
