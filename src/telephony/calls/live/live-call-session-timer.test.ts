// Session timers on a LiveCall (RFC 4028), on the fakes of testing/live-call-setup.ts: BYE as lost
// when the caller's refresh does not come, our UPDATE at half the interval, and the refresher role
// handed over by the far end's refresh.
import { describe, expect, it } from 'vitest';
import { createRequest } from '../../sip/message/build.js';
import type { SipResponse } from '../../sip/message/types.js';
import { flush, setup } from '../testing/live-call-setup.js';

describe('LiveCall: session timers', () => {
  it('session timer, the caller refreshes: nothing before the interval runs out, then BYE as lost', async () => {
    const t = setup({ timer: { seconds: 90, refresher: 'uac' } });
    await t.run();
    t.clock.advance(59_000); // 90 s less a third
    expect(t.ends).toEqual([]);
    t.clock.advance(1_000);
    await flush();
    expect(t.ends).toEqual(['lost']);
  });

  it('session timer, we refresh: UPDATE with Session-Expires at half the interval, again after each 2xx', async () => {
    const t = setup({ timer: { seconds: 120, refresher: 'uas' } });
    await t.run();
    t.clock.advance(60_000);
    await flush();
    expect(t.leg.sent.map((s) => s.method)).toEqual(['UPDATE']);
    // We send the UPDATE, so staying the refresher is refresher=uac (RFC 4028 7.4).
    expect(t.leg.sent[0]!.options?.headers).toEqual([
      ['Session-Expires', '120;refresher=uac'],
      ['Supported', 'timer'],
    ]);
    t.clock.advance(60_000);
    await flush();
    expect(t.leg.sent).toHaveLength(2);
    t.leg.setReply(() => Promise.resolve({ status: 481, headers: [] } as unknown as SipResponse));
    t.clock.advance(60_000);
    await flush();
    expect(t.ends).toEqual(['lost']);
  });

  it("outbound, the callee's 2xx left refreshing to us: UPDATE at half; their later refresh as refresher hands it over", async () => {
    const t = setup({ dialogTimer: { seconds: 90, weRefresh: true }, uas: false });
    await t.run();
    expect(t.call.sessionTimer).toEqual({ seconds: 90, weRefresh: true });
    t.clock.advance(45_000);
    await flush();
    expect(t.leg.sent.map((s) => s.method)).toEqual(['UPDATE']);
    // The callee refreshes with refresher=uac: they are the UAC of that UPDATE, so they refresh
    // from now on, although we opened the dialog (the role is per transaction, RFC 4028 9).
    const update = createRequest({
      method: 'UPDATE',
      uri: 'sip:sb@127.0.0.1',
      headers: [
        ['Via', 'SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKupd'],
        ['From', '<sip:a@x>;tag=1'],
        ['To', '<sip:b@y>;tag=2'],
        ['Call-ID', 'c'],
        ['CSeq', '3 UPDATE'],
        ['Supported', 'timer'],
        ['Session-Expires', '120;refresher=uac'],
      ],
    });
    const answers: { status: number; headers?: unknown }[] = [];
    t.leg.handler!(update, (status, _reason, headers) => void answers.push({ status, headers }));
    expect(answers[0]).toMatchObject({ status: 200 });
    expect(t.call.sessionTimer).toEqual({ seconds: 120, weRefresh: false });
    t.clock.advance(87_000); // 120 s less 32 s
    await flush();
    expect(t.leg.sent).toHaveLength(1);
    expect(t.ends).toEqual([]);
    t.clock.advance(1_000);
    await flush();
    expect(t.ends).toEqual(['lost']);
  });
});
