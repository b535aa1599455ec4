import { describe, expect, it } from 'vitest';
import { trunkTarget } from './sip-leg.js';

describe('trunkTarget', () => {
  const to = '+14155550100';
  it.each([
    [
      'carrier.example.com',
      'udp',
      'sip:+14155550100@carrier.example.com',
      'carrier.example.com',
      null,
      'udp',
    ],
    [
      'carrier.example.com:5080',
      'tcp',
      'sip:+14155550100@carrier.example.com:5080;transport=tcp',
      'carrier.example.com',
      5080,
      'tcp',
    ],
    [
      'sip:trunk1@203.0.113.5;transport=udp;lr',
      'tls',
      'sip:+14155550100@203.0.113.5;transport=tls;lr',
      '203.0.113.5',
      null,
      'tls',
    ],
    [
      'sips:carrier.example.com',
      'udp',
      'sips:+14155550100@carrier.example.com',
      'carrier.example.com',
      null,
      'tls',
    ],
    ['[2001:db8::1]:5060', 'udp', 'sip:+14155550100@[2001:db8::1]:5060', '2001:db8::1', 5060, 'udp'],
  ])('%s over %s', (termination_uri, transport, uri, host, port, t) => {
    expect(trunkTarget({ termination_uri, transport }, to)).toEqual({ uri, host, port, transport: t });
  });

  it('is null for a termination URI that does not parse', () => {
    expect(trunkTarget({ termination_uri: 'not a uri', transport: 'udp' }, to)).toBeNull();
  });
});
