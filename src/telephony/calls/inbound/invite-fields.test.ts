import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../sip/message/parse.js';
import type { SipRequest } from '../../sip/message/types.js';
import { inboundInviteOf } from './invite-fields.js';

function invite(requestUri: string, from: string, to: string, extra: string[] = []): SipRequest {
  const text = [
    `INVITE ${requestUri} SIP/2.0`,
    'Via: SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK-1',
    'Max-Forwards: 70',
    `From: ${from};tag=a1`,
    `To: ${to}`,
    'Call-ID: 8f2c@carrier.example',
    'CSeq: 1 INVITE',
    'Contact: <sip:carrier@203.0.113.10>',
    ...extra,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
  const m = parseMessage(text);
  if (m.kind !== 'request') throw new Error('not a request');
  return m;
}

describe('inboundInviteOf', () => {
  it('reads request URI, To, From, Privacy and Call-ID', () => {
    const req = invite(
      'sip:+14155550100@ws-0a1b2c3d4e.sip.localhost;transport=udp',
      '"Ann" <sip:%2B4930123456@carrier.example>',
      '<sip:+14155550100@ws-0a1b2c3d4e.sip.localhost>',
      ['Privacy: id'],
    );
    expect(inboundInviteOf(req, '203.0.113.10')).toEqual({
      requestUriHost: 'ws-0a1b2c3d4e.sip.localhost',
      requestUriUser: '+14155550100',
      toUser: '+14155550100',
      fromUser: '+4930123456',
      fromHost: 'carrier.example',
      privacy: 'id',
      sourceIp: '203.0.113.10',
      sipCallId: '8f2c@carrier.example',
      assertedUser: null,
      carrierHeaders: {},
    });
  });

  it("reads the asserted identity and carrier_a's call and account ids", () => {
    const sid = 'CA' + 'ab'.repeat(16);
    const req = invite(
      'sip:+14155550100@ws-0a1b2c3d4e.sip.localhost',
      '<sip:anonymous@54.172.60.1>',
      '<sip:+14155550100@ws-0a1b2c3d4e.sip.localhost>',
      [
        'P-Asserted-Identity: "Ann" <sip:+4930123456@54.172.60.1;user=phone>',
        `X-Twilio-CallSid: ${sid}`,
        `x-twilio-accountsid: AC${'cd'.repeat(16)}`,
        `X-Twilio-Other: ${'x'.repeat(10)}`,
      ],
    );
    expect(inboundInviteOf(req, '54.172.60.1')).toMatchObject({
      assertedUser: '+4930123456',
      carrierHeaders: { 'x-twilio-callsid': sid, 'x-twilio-accountsid': `AC${'cd'.repeat(16)}` },
    });
    const rpid = invite('sip:+1@h', '<sip:anonymous@h>', '<sip:+1@h>', [
      'Remote-Party-ID: <tel:+4930999>;party=calling;privacy=off',
      `X-Twilio-CallSid: CA${'0'.repeat(300)}`,
    ]);
    expect(inboundInviteOf(rpid, '54.172.60.1')).toMatchObject({
      assertedUser: '+4930999',
      carrierHeaders: {},
    });
  });

  it('takes tel: users, anonymous callers and URIs without a user', () => {
    const req = invite(
      'sip:ws-0a1b2c3d4e.sip.localhost',
      '<sip:anonymous@anonymous.invalid>',
      '<tel:+1-415-555-0100>',
    );
    expect(inboundInviteOf(req, '::ffff:203.0.113.10')).toMatchObject({
      requestUriUser: null,
      toUser: '+1-415-555-0100',
      fromUser: 'anonymous',
      fromHost: 'anonymous.invalid',
      privacy: null,
    });
  });

  it('gives a tel: request URI no host, and IPv6 hosts without brackets', () => {
    const req = invite('tel:+14155550100', '<sip:+4930123456@[2001:db8::5]>', '<tel:+14155550100>');
    expect(inboundInviteOf(req, '2001:db8::5')).toMatchObject({
      requestUriHost: '',
      requestUriUser: '+14155550100',
      fromHost: '2001:db8::5',
    });
  });
});
