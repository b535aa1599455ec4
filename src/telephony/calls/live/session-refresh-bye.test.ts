// A refresh of ours that fails ends the call with BYE (RFC 4028 10), on both kinds of leg, over a
// FakeWire on a FakeClock: the DialogTimer's UPDATE at half the interval gets 481 or 408 (which
// ends the dialog, RFC 3261 12.2.1.2) or no answer, and the leg still sends one BYE, as the call
// host's `lost` ending does (LiveCall.hangup('lost') → leg.bye()).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { dialogFromUac, isDialog, requestInDialog } from '../../sip/dialog/dialog.js';
import { createReply, createRequest } from '../../sip/message/build.js';
import type { SipMessage, SipRequest } from '../../sip/message/types.js';
import { SipStack } from '../../sip/stack.js';
import { FakeWire, type PeerContext } from '../../../../test/support/fake-wire.js';
import { UacLeg } from '../../sip/uac-leg.js';
import { UasLeg } from '../../sip/uas-leg.js';
import { DialogTimer } from './session-refresh.js';

const US = { host: '192.0.2.1', port: 5060 };
const PEER = { host: '192.0.2.50', port: 5060 };
const SDP =
  'v=0\r\no=- 1 1 IN IP4 192.0.2.50\r\ns=-\r\nc=IN IP4 192.0.2.50\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n';

/** How the peer answers our UPDATE: a status, or nothing at all. */
type UpdateAnswer = 481 | 408 | 'silence';

/** What the peer does with our in-dialog requests: UPDATE as told, BYE 200 (481 once it is gone). */
function inDialog(m: SipMessage, ctx: PeerContext, answer: UpdateAnswer, gone: { dialog: boolean }): void {
  if (m.kind !== 'request') return;
  if (m.method === 'UPDATE' && answer !== 'silence') {
    ctx.send(createReply(m, answer, answer === 481 ? 'Call/Transaction Does Not Exist' : 'Request Timeout'));
    gone.dialog = true;
  }
  if (m.method === 'BYE') ctx.send(createReply(m, gone.dialog ? 481 : 200, gone.dialog ? 'Gone' : 'OK'));
}

/** Our outbound leg, answered by a scripted carrier. */
async function outbound(answer: UpdateAnswer) {
  const clock = new FakeClock();
  const wire = new FakeWire();
  const stack = new SipStack({ clock, host: US.host });
  wire.attach(stack, US.host, US.port);
  const gone = { dialog: false };
  wire.peer(PEER.host, PEER.port, (m, ctx) => {
    if (m.kind === 'request' && m.method === 'INVITE') {
      const headers = [
        ['Contact', `<sip:carrier@${PEER.host}:${PEER.port}>`],
        ['Session-Expires', '90;refresher=uac'],
        ['Content-Type', 'application/sdp'],
      ] as const;
      return ctx.send(createReply(m, 200, 'OK', { toTag: 'carrier', headers: [...headers], body: SDP }));
    }
    inDialog(m, ctx, answer, gone);
  });
  let n = 0;
  const leg = new UacLeg({
    stack,
    localHost: US.host,
    localPort: US.port,
    newId: () => `u${++n}`,
    offer: () => 'v=0\r\n',
  });
  leg.invite(
    { uri: `sip:+15550100@${PEER.host}`, host: PEER.host, port: PEER.port, transport: 'udp' },
    { from: '+15550199', auth: { username: 'a', password: 'p' }, callId: 'call-1' },
    {
      provisional: () => undefined,
      final: () => undefined,
      bye: () => undefined,
      transportError: () => undefined,
    },
  );
  await wire.flush();
  return { clock, wire, leg };
}

/** Our inbound leg: a scripted caller's INVITE answered by a UasLeg, the 2xx ACKed. */
async function inbound(answer: UpdateAnswer) {
  const clock = new FakeClock();
  const wire = new FakeWire();
  let leg: UasLeg | undefined;
  let n = 0;
  const stack: SipStack = new SipStack({
    clock,
    host: US.host,
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      const o = {
        stack,
        clock,
        contact: `<sip:sb@${US.host}>`,
        newId: () => `s${++n}`,
        localHost: US.host,
        localPort: US.port,
      };
      leg = new UasLeg(o, req, tx, {
        cancelled: () => undefined,
        bye: () => undefined,
        ackTimeout: () => undefined,
      });
      leg.answer('v=0\r\n', [['Session-Expires', '90;refresher=uas']]);
      return true;
    },
  });
  wire.attach(stack, US.host, US.port);
  const invite = createRequest({
    method: 'INVITE',
    uri: `sip:+15550100@${US.host}`,
    headers: [
      ['Via', `SIP/2.0/UDP ${PEER.host}:${PEER.port};branch=z9hG4bKcaller1`],
      ['Max-Forwards', '70'],
      ['From', `<sip:+4930123@${PEER.host}>;tag=caller`],
      ['To', `<sip:+15550100@${US.host}>`],
      ['Call-ID', 'in-1'],
      ['CSeq', '1 INVITE'],
      ['Contact', `<sip:caller@${PEER.host}:${PEER.port}>`],
      ['Supported', 'timer'],
      ['Session-Expires', '90;refresher=uas'],
      ['Content-Type', 'application/sdp'],
    ],
    body: SDP,
  });
  const gone = { dialog: false };
  wire.peer(PEER.host, PEER.port, (m, ctx) => {
    if (m.kind === 'response' && m.status === 200 && m.cseq.method === 'INVITE') {
      const d = dialogFromUac(invite, m);
      if (!isDialog(d)) throw new Error(d.reason);
      const via = `SIP/2.0/UDP ${PEER.host}:${PEER.port};branch=z9hG4bKcallerack`;
      return ctx.send(requestInDialog(d, { method: 'ACK', via, cseq: 1 }).request, US);
    }
    inDialog(m, ctx, answer, gone);
  });
  wire.post(invite, PEER, US);
  await wire.flush();
  if (!leg?.acked) throw new Error('the inbound leg was not set up');
  return { clock, wire, leg };
}

describe('a failed refresh of ours ends the call with BYE (RFC 4028 10)', () => {
  for (const [side, make] of [
    ['outbound (UacLeg)', outbound],
    ['inbound (UasLeg)', inbound],
  ] as const) {
    for (const answer of [481, 408, 'silence'] as const) {
      it(`${side}: an UPDATE answered ${answer === 'silence' ? 'by nothing' : answer} is followed by one BYE`, async () => {
        const t = await make(answer);
        let lost = 0;
        const timer = new DialogTimer(t.clock, t.leg, () => {
          lost++;
          t.leg.bye();
        });
        timer.arm({ seconds: 90, weRefresh: true });
        t.clock.advance(45_000);
        await t.wire.flush();
        const updates = t.wire.requests('UPDATE');
        expect(updates).toHaveLength(1);
        // No answer: timer F (64*T1 = 32 s) first.
        if (answer === 'silence') {
          expect(lost).toBe(0);
          t.clock.advance(32_000);
          await t.wire.flush();
        }
        expect(lost).toBe(1);
        const byes: SipRequest[] = t.wire.requests('BYE');
        expect(byes).toHaveLength(1);
        const [update, bye] = [updates[0]!, byes[0]!];
        expect(bye.callId).toBe(update.callId);
        expect([bye.from.tag, bye.to.tag]).toEqual([update.from.tag, update.to.tag]);
        expect(bye.cseq.seq).toBe(update.cseq.seq + 1);
        // Once is enough: a second hang-up sends nothing more.
        t.leg.bye();
        await t.wire.flush();
        expect(t.wire.requests('BYE')).toHaveLength(1);
      });
    }
  }
});
