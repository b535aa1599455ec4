// RFC 3261 18.1.1 size rule and the top-Via rewrite, without sockets.
import { describe, expect, it } from 'vitest';
import { getHeaders } from '../message/access.js';
import { createRequest } from '../message/build.js';
import { parseMessage } from '../message/parse.js';
import { serialize } from '../message/serialize.js';
import type { SipRequest } from '../message/types.js';
import type { Destination } from '../transaction/types.js';
import { fitsDatagram, streamForSize, withTopVia } from './size.js';

const udp: Destination = { transport: 'UDP', host: '192.0.2.7', port: 5060, reliable: false };

function invite(bodyBytes: number, via = 'SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa1;rport'): SipRequest {
  return createRequest({
    method: 'INVITE',
    uri: 'sip:+15550100@192.0.2.7',
    headers: [
      ['Via', `${via}, SIP/2.0/UDP 192.0.2.99:5060;branch=z9hG4bKproxy`],
      ['Max-Forwards', '70'],
      ['From', '<sip:sb@192.0.2.1>;tag=1'],
      ['To', '<sip:+15550100@192.0.2.7>'],
      ['Call-ID', 'size-test'],
      ['CSeq', '1 INVITE'],
      ['Content-Type', 'application/sdp'],
    ],
    body: 'x'.repeat(bodyBytes),
  });
}

/** A request of exactly `total` bytes on the wire. */
function ofSize(total: number): SipRequest {
  const base = serialize(invite(0)).length;
  let req = invite(total - base);
  // Content-Length grows by a digit or more with the body: trim to the exact size.
  req = invite(total - base - (serialize(req).length - total));
  expect(serialize(req).length).toBe(total);
  return req;
}

describe('RFC 3261 18.1.1: large requests leave UDP', () => {
  it('keeps up to 1300 bytes on UDP and moves 1301 to TCP (MTU 1500 less 200)', () => {
    expect(fitsDatagram(ofSize(1300))).toBe(true);
    expect(fitsDatagram(ofSize(1301))).toBe(false);
    expect(streamForSize(ofSize(1300), udp)).toBeUndefined();
    const moved = streamForSize(ofSize(1301), udp)!;
    expect(moved.destination).toEqual({ transport: 'TCP', host: '192.0.2.7', port: 5060, reliable: true });
    expect(moved.request.via[0]).toMatchObject({
      transport: 'TCP',
      host: '192.0.2.1',
      port: 5060,
      branch: 'z9hG4bKa1',
    });
  });

  it('follows a known path MTU, and never touches TCP or TLS destinations', () => {
    expect(fitsDatagram(ofSize(1301), 9000)).toBe(true);
    expect(fitsDatagram(ofSize(1000), 1200)).toBe(true);
    expect(fitsDatagram(ofSize(1001), 1200)).toBe(false);
    expect(streamForSize(ofSize(4000), { ...udp, transport: 'TLS', reliable: true })).toBeUndefined();
  });

  it('rewrites only the top Via, keeps the rest of the message, and parses back', () => {
    const req = invite(10, 'SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa1;rport=4000;received=198.51.100.1');
    const out = withTopVia(req, { transport: 'TCP', branch: 'z9hG4bKnew' });
    expect(getHeaders(out, 'Via')).toEqual([
      'SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bKnew;rport, SIP/2.0/UDP 192.0.2.99:5060;branch=z9hG4bKproxy',
    ]);
    expect(out.via[1].branch).toBe('z9hG4bKproxy');
    expect(out.body).toEqual(req.body);
    expect(out.cseq).toEqual(req.cseq);
    const back = parseMessage(serialize(out)) as SipRequest;
    expect(back.via[0]).toMatchObject({ transport: 'TCP', branch: 'z9hG4bKnew' });
    expect(getHeaders(back, 'Call-ID')).toEqual(['size-test']);
  });
});
