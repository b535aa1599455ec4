// Session timers on our dialogs (session-refresh.ts) on a FakeClock: the INVITE we send asks for
// them, the 2xx decides who refreshes, we refresh by UPDATE at half the interval (and follow what
// its 2xx says), the far end's refresh that never comes, and a refresh that fails.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import type { InDialogSend } from '../../sip/dialog-requests.js';
import { createReply, createRequest, type HeaderInit } from '../../sip/message/build.js';
import type { SipRequest, SipResponse } from '../../sip/message/types.js';
import { DialogTimer, timerInviteHeaders, timerOfOur2xx } from './session-refresh.js';

function invite(extra: HeaderInit[] = [], toTag?: string): SipRequest {
  return createRequest({
    method: 'INVITE',
    uri: 'sip:+15550100@trunk.example',
    headers: [
      ['Via', 'SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKinv'],
      ['From', '<sip:+15550199@127.0.0.1>;tag=us'],
      ['To', `<sip:+15550100@trunk.example>${toTag ? `;tag=${toTag}` : ''}`],
      ['Call-ID', 'call-1@127.0.0.1'],
      ['CSeq', '1 INVITE'],
      ['Content-Type', 'application/sdp'],
      ...extra,
    ],
    body: 'v=0\r\n',
  });
}

function reply(req: SipRequest, status: number, headers: HeaderInit[] = []): SipResponse {
  return createReply(req, status, status === 200 ? 'OK' : 'No', { headers, toTag: 'them' });
}

function fakeLeg() {
  const sent: InDialogSend[] = [];
  let answer: (n: number) => Promise<SipResponse> = () => Promise.resolve(reply(invite(), 200));
  return {
    sent,
    answerWith(fn: (n: number) => Promise<SipResponse>) {
      answer = fn;
    },
    leg: {
      sendInDialog: (method: string, options: InDialogSend = {}) => {
        expect(method).toBe('UPDATE');
        sent.push(options);
        return answer(sent.length);
      },
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('our INVITE asks for session timers', () => {
  it('the INVITE carries Supported: timer, Session-Expires 1800 and Min-SE 90 (UacLeg inviteHeaders)', () => {
    expect(timerInviteHeaders()).toEqual([
      ['Supported', 'timer'],
      ['Session-Expires', '1800'],
      ['Min-SE', '90'],
    ]);
    // Never below the RFC 4028 floor of 90 s, and never an interval below our own Min-SE.
    expect(timerInviteHeaders({ sessionExpires: 60, minSE: 30 })).toEqual([
      ['Supported', 'timer'],
      ['Session-Expires', '90'],
      ['Min-SE', '90'],
    ]);
  });

  it('the 2xx decides: refresher=uac (or none) is us, refresher=uas them, no Session-Expires no timer', () => {
    const req = invite();
    expect(timerOfOur2xx(reply(req, 200, [['Session-Expires', '1800;refresher=uac']]))).toEqual({
      seconds: 1800,
      weRefresh: true,
    });
    expect(timerOfOur2xx(reply(req, 200, [['Session-Expires', '600;refresher=uas']]))).toEqual({
      seconds: 600,
      weRefresh: false,
    });
    expect(timerOfOur2xx(reply(req, 200, [['Session-Expires', '900']]))).toEqual({
      seconds: 900,
      weRefresh: true,
    });
    expect(timerOfOur2xx(reply(req, 200))).toBeUndefined();
  });
});

describe('DialogTimer', () => {
  it('we refresh: UPDATE with refresher=uac at half the interval, again after each 2xx, until stopped', async () => {
    const clock = new FakeClock();
    const t = fakeLeg();
    let lost = 0;
    const timer = new DialogTimer(clock, t.leg, () => lost++);
    timer.arm({ seconds: 90, weRefresh: true });
    clock.advance(44_999);
    expect(t.sent).toHaveLength(0);
    clock.advance(1);
    await flush();
    expect(t.sent[0]!.headers).toEqual([
      ['Session-Expires', '90;refresher=uac'],
      ['Supported', 'timer'],
    ]);
    clock.advance(45_000);
    await flush();
    expect(t.sent).toHaveLength(2);
    timer.stop();
    clock.advance(100_000);
    await flush();
    expect(t.sent).toHaveLength(2);
    expect(lost).toBe(0);
  });

  it("follows the UPDATE's 2xx: a longer interval, or the far end taking the refresher role", async () => {
    const clock = new FakeClock();
    const t = fakeLeg();
    let lost = 0;
    const timer = new DialogTimer(clock, t.leg, () => lost++);
    t.answerWith(() => Promise.resolve(reply(invite(), 200, [['Session-Expires', '300;refresher=uas']])));
    timer.arm({ seconds: 90, weRefresh: true });
    clock.advance(45_000);
    await flush();
    expect(timer.state).toEqual({ seconds: 300, weRefresh: false });
    clock.advance(199_999); // 300 s less 32 s, then nothing came: lost
    await flush();
    expect(lost).toBe(0);
    clock.advance(68_001);
    await flush();
    expect(t.sent).toHaveLength(1);
    expect(lost).toBe(1);
  });

  it('422 with Min-SE: the next refresh asks for that; 481 or no answer: lost', async () => {
    const clock = new FakeClock();
    const t = fakeLeg();
    let lost = 0;
    const timer = new DialogTimer(clock, t.leg, () => lost++);
    t.answerWith(() => Promise.resolve(reply(invite(), 422, [['Min-SE', '120']])));
    timer.arm({ seconds: 90, weRefresh: true });
    clock.advance(45_000);
    await flush();
    expect(timer.state).toEqual({ seconds: 120, weRefresh: true });
    t.answerWith(() => Promise.resolve(reply(invite(), 481)));
    clock.advance(60_000);
    await flush();
    expect(t.sent[1]!.headers).toContainEqual(['Session-Expires', '120;refresher=uac']);
    expect(lost).toBe(1);
    const other = new DialogTimer(
      clock,
      { sendInDialog: () => Promise.reject(new Error('timeout')) },
      () => lost++,
    );
    other.arm({ seconds: 90, weRefresh: true });
    clock.advance(45_000);
    await flush();
    expect(lost).toBe(2);
  });

  it('they refresh: lost when nothing came by the interval less min(32 s, a third); a refresh re-arms', async () => {
    const clock = new FakeClock();
    const t = fakeLeg();
    let lost = 0;
    const timer = new DialogTimer(clock, t.leg, () => lost++);
    timer.arm({ seconds: 90, weRefresh: false });
    clock.advance(59_000);
    timer.arm(timer.state); // their refresh came
    clock.advance(59_999);
    expect(lost).toBe(0);
    clock.advance(1);
    expect(lost).toBe(1);
    expect(t.sent).toHaveLength(0);
  });
});
