import { describe, expect, it } from 'vitest';
import { advertisePublicIp } from './candidates.js';

const answer = [
  'm=audio 50000 UDP/TLS/RTP/SAVPF 111',
  'a=candidate:1 1 UDP 2122317823 10.0.0.5 50000 typ host',
  'a=candidate:2 1 UDP 1686052607 198.51.100.1 50000 typ srflx raddr 10.0.0.5 rport 50000',
  'a=end-of-candidates',
  '',
].join('\r\n');

describe('advertisePublicIp', () => {
  it('adds the public address beside each host candidate, one rank lower', () => {
    const out = advertisePublicIp(answer, '203.0.113.7').split('\r\n');
    expect(out).toEqual([
      'm=audio 50000 UDP/TLS/RTP/SAVPF 111',
      'a=candidate:1 1 UDP 2122317823 10.0.0.5 50000 typ host',
      'a=candidate:p1 1 UDP 2122317822 203.0.113.7 50000 typ host',
      'a=candidate:2 1 UDP 1686052607 198.51.100.1 50000 typ srflx raddr 10.0.0.5 rport 50000',
      'a=end-of-candidates',
      '',
    ]);
  });

  it('changes nothing without a public address, or when it is the bound one', () => {
    expect(advertisePublicIp(answer, undefined)).toBe(answer);
    expect(advertisePublicIp(answer, '10.0.0.5')).toBe(answer);
  });
});
