// UasLeg hands its owner the caller's ACK for our 2xx: with a late offer (an INVITE without SDP)
// our 2xx carries the offer and that ACK carries the answer (RFC 3264, RFC 3261 13.2.2.4). Only the
// first ACK counts; a retransmitted one is absorbed. Over a stack whose transports the test plays.
import { describe, expect, it } from 'vitest';
import { carrierInDialog } from '../../../test/support/wired-node.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { wiredStack } from '../../../test/support/fake-wire.js';
import type { Source } from './transport/routing.js';
import { UasLeg } from './uas-leg.js';

const CARRIER: Source = { transport: 'UDP', address: '203.0.113.10', port: 5060 };
const sdp = (port: number) =>
  `v=0\r\no=x 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${port} RTP/AVP 0\r\n`;

const INVITE = [
  'INVITE sip:+14155550100@192.0.2.1 SIP/2.0',
  'Via: SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKlate',
  'Max-Forwards: 70',
  'To: <sip:+14155550100@192.0.2.1>',
  'From: <sip:+4930123456@carrier.test>;tag=c1',
  'Call-ID: late-offer@carrier',
  'CSeq: 1 INVITE',
  'Contact: <sip:carrier@203.0.113.10:5060>',
  'Content-Length: 0',
  '',
  '',
].join('\r\n');

describe('UasLeg and the ACK', () => {
  it('hands the owner the first ACK with its body (the answer to the offer in our 2xx)', () => {
    const acks: SipRequest[] = [];
    let n = 0;
    const w = wiredStack({
      onRequest: (req, tx) => {
        const leg = new UasLeg(
          {
            stack: w.stack,
            clock: w.stack.clock,
            contact: '<sip:sb@192.0.2.1:5060>',
            newId: () => `u${++n}`,
            localHost: '192.0.2.1',
            localPort: 5060,
          },
          req,
          tx,
          {
            cancelled: () => undefined,
            bye: () => undefined,
            ackTimeout: () => undefined,
            acked: (ack) => acks.push(ack),
          },
        );
        leg.answer(sdp(30000));
        return true;
      },
    });
    w.deliver(INVITE, CARRIER);
    const ok = w.responses().find((r) => r.message.status === 200)!.message as SipResponse;
    expect(new TextDecoder().decode(ok.body)).toBe(sdp(30000));
    const ack = carrierInDialog(ok, 'ACK', { branch: 'z9hG4bKack', cseq: 1, sdp: sdp(40000) });
    w.deliver(ack, CARRIER);
    w.deliver(ack, CARRIER);
    expect(acks).toHaveLength(1);
    expect(new TextDecoder().decode(acks[0]!.body)).toBe(sdp(40000));
  });
});
