// What both legs share inside a dialog, on a fake clock: a 2xx to a re-INVITE resent until its ACK
// (UDP only; the missing ACK reported on any transport), and the CSeq check and target refresh.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Dialog } from './dialog/dialog.js';
import { ReinviteAnswers, answerInDialog } from './in-dialog.js';
import { createReply, createRequest } from './message/build.js';
import type { SipRequest, SipResponse } from './message/types.js';
import type { ServerTransaction } from './transaction/server.js';
import type { Destination } from './transaction/types.js';

const UDP: Destination = { transport: 'UDP', host: '192.0.2.9', port: 5060, reliable: false };
const TCP: Destination = { transport: 'TCP', host: '192.0.2.9', port: 5060, reliable: true };

function request(method: string, seq: number, contact = 'sip:a@192.0.2.9'): SipRequest {
  return createRequest({
    method,
    uri: 'sip:sb@192.0.2.1',
    headers: [
      ['Via', `SIP/2.0/UDP 192.0.2.9;branch=z9hG4bK${method}${seq}`],
      ['Max-Forwards', '70'],
      ['From', '<sip:a@example.com>;tag=a'],
      ['To', '<sip:sb@example.com>;tag=b'],
      ['Call-ID', 'c1'],
      ['CSeq', `${seq} ${method}`],
      ['Contact', `<${contact}>`],
    ],
  });
}

function answers(clock: FakeClock) {
  const sent: number[] = [];
  let noAck = 0;
  const r = new ReinviteAnswers({
    clock,
    send: () => void sent.push(clock.monotonic()),
    onNoAck: () => noAck++,
  });
  return { r, sent, noAck: () => noAck };
}

describe('ReinviteAnswers', () => {
  it('resends a 2xx to a re-INVITE on UDP until the ACK with its CSeq number', () => {
    const clock = new FakeClock();
    const { r, sent, noAck } = answers(clock);
    const inv = request('INVITE', 5);
    r.answered(inv, createReply(inv, 200, 'OK'), UDP);
    // Not a 2xx, or not an INVITE: nothing to resend.
    r.answered(inv, createReply(inv, 488, 'Not Acceptable Here'), UDP);
    r.answered(request('UPDATE', 6), createReply(request('UPDATE', 6), 200, 'OK'), UDP);
    expect(r.waiting).toBe(1);
    clock.advance(4000);
    expect(sent).toEqual([500, 1500, 3500]);
    expect(r.ack(request('ACK', 4))).toBe(false);
    expect(r.ack(request('ACK', 5))).toBe(true);
    clock.advance(60_000);
    expect(sent).toHaveLength(3);
    expect(noAck()).toBe(0);
    expect(r.waiting).toBe(0);
  });

  it('never resends on TCP but still reports a missing ACK after 64*T1; stop() silences it', () => {
    const clock = new FakeClock();
    const { r, sent, noAck } = answers(clock);
    const inv = request('INVITE', 2);
    r.answered(inv, createReply(inv, 200, 'OK'), TCP);
    clock.advance(31_999);
    expect(noAck()).toBe(0);
    clock.advance(1);
    expect(noAck()).toBe(1);
    expect(sent).toEqual([]);
    const next = request('INVITE', 3);
    r.answered(next, createReply(next, 200, 'OK'), UDP);
    r.stop();
    clock.advance(60_000);
    expect(sent).toEqual([]);
    expect(noAck()).toBe(1);
  });
});

describe('answerInDialog', () => {
  const dialog: Dialog = {
    id: { callId: 'c1', localTag: 'b', remoteTag: 'a' },
    state: 'confirmed',
    localSeq: 1,
    remoteSeq: 5,
    localUri: {
      uri: { kind: 'other', raw: 'sip:sb@example.com' },
      params: new Map(),
    } as unknown as Dialog['localUri'],
    remoteUri: {
      uri: { kind: 'other', raw: 'sip:a@example.com' },
      params: new Map(),
    } as unknown as Dialog['remoteUri'],
    remoteTarget: request('INVITE', 1).contact[0].uri,
    routeSet: [],
    secure: false,
  };

  function tx(req: SipRequest) {
    const responses: SipResponse[] = [];
    const t = { request: req, destination: UDP, respond: (r: SipResponse) => responses.push(r) };
    return { t: t as unknown as ServerTransaction, responses };
  }

  it('refuses a CSeq below the last one with 500, and refreshes the target only on a 2xx', () => {
    const clock = new FakeClock();
    const { r } = answers(clock);
    let d = dialog;
    const holder = { get: () => d, set: (n: Dialog) => (d = n) };

    const old = tx(request('INFO', 4));
    expect(answerInDialog(old.t.request, old.t, r, holder)).toBeUndefined();
    expect(old.responses.map((x) => x.status)).toEqual([500]);

    const refused = tx(request('INVITE', 6, 'sip:a@198.51.100.7:5070'));
    answerInDialog(refused.t.request, refused.t, r, holder)!(488, 'Not Acceptable Here');
    expect(d.remoteSeq).toBe(6);
    expect(d.remoteTarget).toMatchObject({ host: '192.0.2.9' });
    expect(r.waiting).toBe(0);

    const moved = tx(request('INVITE', 7, 'sip:a@198.51.100.7:5070'));
    answerInDialog(moved.t.request, moved.t, r, holder)!(200, 'OK');
    expect(d.remoteTarget).toMatchObject({ host: '198.51.100.7', port: 5070 });
    expect(r.waiting).toBe(1);
  });
});
