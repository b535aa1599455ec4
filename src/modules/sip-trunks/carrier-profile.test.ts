import { describe, expect, it } from 'vitest';
import {
  CARRIER_A_SIGNALLING_CIDRS,
  carrierATerminationHost,
  inboundCarrierMetadata,
  outboundProfile,
  terminationProblem,
} from './carrier-profile.js';
import { ipAllowed, normalizeCidr, parseTerminationUri } from './trunk-fields.js';

const CALL_SID = 'CA' + '0123456789abcdef'.repeat(2);
const ACCOUNT_SID = 'AC' + 'fedcba9876543210'.repeat(2);

describe('carrier_a termination hosts', () => {
  it('reads the trunk name and the edge, legacy region or interconnect', () => {
    expect(carrierATerminationHost('acme.pstn.twilio.com')).toEqual({ trunk: 'acme', edge: null });
    expect(carrierATerminationHost('Acme-1.PSTN.Ashburn.twilio.com')).toEqual({
      trunk: 'acme-1',
      edge: 'ashburn',
    });
    expect(carrierATerminationHost('acme.pstn.sao-paulo.twilio.com.')?.edge).toBe('sao-paulo');
    expect(carrierATerminationHost('acme.pstn.us2.twilio.com')?.edge).toBe('us2');
    expect(carrierATerminationHost('acme.pstn.london-ix.twilio.com')?.edge).toBe('london-ix');
    expect(carrierATerminationHost('acme.pstn.ie1-ix.twilio.com')?.edge).toBe('ie1-ix');
    for (const host of [
      'acme.pstn.mars.twilio.com',
      'acme.sip.twilio.com',
      'pstn.twilio.com',
      'a.b.pstn.twilio.com',
      'acme.pstn.twilio.com.evil.example',
      '-acme.pstn.twilio.com',
    ]) {
      expect(carrierATerminationHost(host), host).toBeNull();
    }
  });

  it('generic takes any target; carrier_a its host, no user part, the port of its transport', () => {
    const problem = (uri: string, transport: string, provider = 'carrier_a') =>
      terminationProblem(provider, parseTerminationUri(uri)!, transport);
    expect(problem('sip:pbx.example.org:5080', 'udp', 'generic')).toBeNull();
    expect(problem('acme.pstn.twilio.com', 'udp')).toBeNull();
    expect(problem('sip:acme.pstn.tokyo.twilio.com:5061', 'tls')).toBeNull();
    expect(problem('sips:acme.pstn.tokyo.twilio.com:5061', 'udp')).toBeNull();
    expect(problem('sip:pbx.example.org', 'udp')).toMatch(/pstn\.twilio\.com/);
    expect(problem('sip:trunk@acme.pstn.twilio.com', 'udp')).toMatch(/user part/);
    expect(problem('sip:acme.pstn.twilio.com:5080', 'tcp')).toMatch(/5060/);
    expect(problem('sip:acme.pstn.twilio.com:5060', 'tls')).toMatch(/5061/);
  });
});

describe('carrier_a signalling ranges', () => {
  it('are canonical CIDRs that admit its gateways and nobody next to them', () => {
    for (const cidr of CARRIER_A_SIGNALLING_CIDRS) expect(normalizeCidr(cidr)).toBe(cidr);
    const all = [...CARRIER_A_SIGNALLING_CIDRS];
    expect(ipAllowed(all, '54.172.60.3')).toBe(true);
    expect(ipAllowed(all, '177.71.206.193')).toBe(true);
    expect(ipAllowed(all, '54.172.60.4')).toBe(false);
    expect(ipAllowed(all, '203.0.113.10')).toBe(false);
  });
});

describe('what a provider changes on the wire', () => {
  it('outbound: carrier_a offers G.711 only, asserts the caller ID and is paced; generic changes nothing', () => {
    const a = outboundProfile('carrier_a');
    expect(a.codecs).toEqual(['PCMU', 'PCMA']);
    expect(a.identityHeaders('+14155550100', 'sip.example.com')).toEqual([
      ['P-Asserted-Identity', '<sip:+14155550100@sip.example.com>'],
    ]);
    expect(a.callsPerSecond).toBe(30);
    const g = outboundProfile('generic');
    expect([g.codecs, g.identityHeaders('+1', 'x'), g.callsPerSecond]).toEqual([null, [], null]);
  });

  it("inbound: carrier_a's call and account identifiers when well formed, nothing else", () => {
    const headers = { 'x-twilio-callsid': CALL_SID, 'x-twilio-accountsid': ` ${ACCOUNT_SID} ` };
    expect(inboundCarrierMetadata('carrier_a', headers)).toEqual({
      carrier_call_sid: CALL_SID,
      carrier_account_sid: ACCOUNT_SID,
    });
    expect(inboundCarrierMetadata('generic', headers)).toEqual({});
    expect(
      inboundCarrierMetadata('carrier_a', {
        'x-twilio-callsid': 'CA<script>',
        'x-twilio-accountsid': CALL_SID,
        'x-other': ACCOUNT_SID,
      }),
    ).toEqual({});
  });
});
