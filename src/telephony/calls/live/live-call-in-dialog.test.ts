// The caller's in-dialog requests on a LiveCall, on the fakes of testing/live-call-setup.ts: INFO
// digits reach the media listeners (or a bridge that asked for them), a REFER from the phone party
// is declined, other requests are left to the leg.
import { describe, expect, it } from 'vitest';
import { createRequest } from '../../sip/message/build.js';
import { blind, flush, setup } from '../testing/live-call-setup.js';

describe("LiveCall: the caller's in-dialog requests", () => {
  it('an INFO digit reaches the media listeners and is answered 200; REFER is declined 603; other requests are left to the leg', async () => {
    const t = setup();
    const digits: string[] = [];
    t.media.onDigit((d) => digits.push(d));
    const info = createRequest({
      method: 'INFO',
      uri: 'sip:sb@127.0.0.1',
      headers: [
        ['Via', 'SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKinfo'],
        ['From', '<sip:a@x>;tag=1'],
        ['To', '<sip:b@y>;tag=2'],
        ['Call-ID', 'c'],
        ['CSeq', '2 INFO'],
        ['Content-Type', 'application/dtmf-relay'],
      ],
      body: 'Signal=7\r\nDuration=160\r\n',
    });
    const answers: number[] = [];
    expect(t.leg.handler!(info, (status) => void answers.push(status))).toBe(true);
    expect(digits).toEqual(['7']);
    expect(answers).toEqual([200]);
    const notify = { ...info, method: 'NOTIFY' };
    expect(t.leg.handler!(notify, () => undefined)).toBe(false);
    // A REFER from the phone party of the call: 603 Decline with a Warning, the call goes on.
    const refer = { ...info, method: 'REFER' };
    const declined: [number, string, unknown][] = [];
    expect(
      t.leg.handler!(refer, (status, reason, headers) => void declined.push([status, reason, headers])),
    ).toBe(true);
    expect(declined).toEqual([
      [603, 'Decline', [['Warning', '399 127.0.0.1 "this call cannot be transferred by REFER"']]],
    ]);
    expect(t.ends).toEqual([]);
  });

  it("the caller's SIP INFO digits go to a bridge that asked for them, and back to the workflow after", async () => {
    let endBridge!: () => void;
    const bridged: string[] = [];
    let release: (() => void) | undefined;
    const t = setup({
      transferer: async (ctx) => {
        ctx.suspendMedia();
        release = ctx.callerDigits!((d) => bridged.push(d));
        return { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
      },
    });
    await t.run();
    const own: string[] = [];
    t.media.onDigit((d) => own.push(d));
    const info = (digit: string, seq: number) =>
      createRequest({
        method: 'INFO',
        uri: 'sip:sb@127.0.0.1',
        headers: [
          ['Via', `SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKinfo${seq}`],
          ['From', '<sip:a@x>;tag=1'],
          ['To', '<sip:b@y>;tag=2'],
          ['Call-ID', 'c'],
          ['CSeq', `${seq} INFO`],
          ['Content-Type', 'application/dtmf-relay'],
        ],
        body: `Signal=${digit}\r\nDuration=160\r\n`,
      });
    void t.control().transfer('sip:human@example.com', { ...blind, mode: 'warm' });
    await flush();
    const answers: number[] = [];
    t.leg.handler!(info('5', 2), (status) => void answers.push(status));
    t.clock.advance(400);
    t.leg.handler!(info('#', 3), (status) => void answers.push(status));
    expect(answers).toEqual([200, 200]);
    expect(bridged).toEqual(['5', '#']);
    expect(own).toEqual([]);
    release!();
    t.media.suspended = false; // as a failed transfer's resumeMedia leaves it
    t.leg.handler!(info('7', 4), () => undefined);
    expect(own).toEqual(['7']);
    expect(bridged).toEqual(['5', '#']);
    t.session.finish();
    endBridge();
    await t.call.closed;
  });
});
