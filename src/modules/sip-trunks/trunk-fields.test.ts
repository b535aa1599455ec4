import { describe, expect, it } from 'vitest';
import { ipAllowed, normalizeCidr, parseTerminationUri } from './trunk-fields.js';

describe('parseTerminationUri', () => {
  it.each([
    ['carrier.example.com', { scheme: null, user: null, host: 'carrier.example.com', port: null }],
    ['carrier.example.com:5061', { scheme: null, host: 'carrier.example.com', port: 5061 }],
    ['203.0.113.5', { host: '203.0.113.5', port: null }],
    ['[2001:db8::1]:5060', { host: '2001:db8::1', port: 5060 }],
    ['sip:carrier.example.com', { scheme: 'sip', host: 'carrier.example.com' }],
    ['sips:carrier.example.com:5061', { scheme: 'sips', port: 5061 }],
    ['sip:trunk1@203.0.113.5:5080', { scheme: 'sip', user: 'trunk1', host: '203.0.113.5', port: 5080 }],
    ['sip:pbx.example.com;transport=tls', { params: ';transport=tls' }],
    ['mytrunk.pstn.example-carrier.net', { host: 'mytrunk.pstn.example-carrier.net' }],
  ])('accepts %s', (input, expected) => {
    expect(parseTerminationUri(input)).toMatchObject(expected);
  });

  it.each([
    '',
    'carrier example.com',
    'http://carrier.example.com',
    'carrier.example.com:0',
    'carrier.example.com:70000',
    '999.1.1.1',
    '10.0.0',
    '-bad.example.com',
    '2001:db8::1',
    '[2001:db8::zz]',
    'sip:',
    'sip:a@',
    'carrier.example.com;transport=tls',
    'sip:carrier.example.com?X-Header=1',
    `${'a'.repeat(64)}.example.com`,
  ])('rejects %j', (input) => {
    expect(parseTerminationUri(input)).toBeNull();
  });
});

describe('normalizeCidr', () => {
  it('accepts IPv4 and IPv6 CIDRs and widens bare addresses to one host', () => {
    expect(normalizeCidr('203.0.113.0/24')).toBe('203.0.113.0/24');
    expect(normalizeCidr(' 203.0.113.7 ')).toBe('203.0.113.7/32');
    expect(normalizeCidr('2001:DB8:0:0::/32')).toBe('2001:db8::/32');
    expect(normalizeCidr('2001:db8::1')).toBe('2001:db8::1/128');
    expect(normalizeCidr('10.0.0.7/24')).toBe('10.0.0.7/24');
    expect(normalizeCidr('0.0.0.0/0')).toBe('0.0.0.0/0');
    expect(normalizeCidr('::ffff:10.0.0.0/104')).toBe('10.0.0.0/8');
    expect(normalizeCidr('::FFFF:10.0.0.1')).toBe('10.0.0.1/32');
  });

  it.each([
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.1',
    '10.0.0.0/',
    '10.0.0.0/a',
    'fe80::1%eth0',
    'host',
    '10.0.0.0/24/8',
  ])('rejects %j', (input) => expect(normalizeCidr(input)).toBeNull());
});

describe('ipAllowed', () => {
  const list = ['203.0.113.0/24', '2001:db8::/32'];
  it('admits addresses inside a range, IPv4-mapped sources included', () => {
    expect(ipAllowed(list, '203.0.113.99')).toBe(true);
    expect(ipAllowed(list, '::ffff:203.0.113.99')).toBe(true);
    expect(ipAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(ipAllowed(list, '198.51.100.1')).toBe(false);
    expect(ipAllowed(list, '2001:db9::1')).toBe(false);
    expect(ipAllowed(list, 'nonsense')).toBe(false);
  });
  it('admits everyone when the list is empty', () => {
    expect(ipAllowed([], '198.51.100.1')).toBe(true);
  });
});
