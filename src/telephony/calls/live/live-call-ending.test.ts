// LiveCall's ending, on the fakes of testing/live-call-setup.ts: one ending per call whoever asks
// (the workflow, the caller's BYE), then usage metered (a warm transfer's announcement included)
// and the media closed.
import { describe, expect, it } from 'vitest';
import { blind, setup } from '../testing/live-call-setup.js';

describe('LiveCall: one ending, then usage metered', () => {
  it('the workflow ending hangs up once (BYE + record), then meters usage and closes the media', async () => {
    const t = setup();
    await t.run();
    expect(t.session.live.started).toBe(true);
    t.session.finish();
    await t.call.closed;
    expect(t.ends).toEqual(['workflow']);
    await t.call.hangup('workflow');
    await t.call.remoteEnded();
    expect(t.ends).toEqual(['workflow']);
    expect(t.usage).toEqual([
      { metric: 'tts_characters', quantity: 42 },
      { metric: 'stt_seconds', quantity: 2 },
    ]);
    expect(t.counts()).toEqual({ rtpClosed: 1, channelClosed: 1 });
  });

  it('watches the media from the answer and, on the media timeout, hangs up once as media_timeout', async () => {
    const t = setup({ mediaTimeoutMs: 60_000 });
    expect(t.mediaWatch()).toBeUndefined();
    await t.run();
    expect(t.mediaWatch()?.bounds).toEqual({ timeoutMs: 60_000, holdTimeoutMs: 0 });
    t.mediaWatch()!.onTimeout(false);
    await t.call.closed;
    expect(t.ends).toEqual(['media_timeout']);
    expect(t.warnings.map((w) => w.message)).toEqual([
      'no RTP or RTCP from the far end: hanging up (media_timeout)',
    ]);
    // The phone party is gone, as after a BYE: its session ends caller_hangup.
    expect(t.session.ends).toEqual(['caller_hangup']);
    await t.call.remoteEnded();
    expect(t.ends).toEqual(['media_timeout']);
    expect(t.counts()).toEqual({ rtpClosed: 1, channelClosed: 1 });
  });

  it('ends a call whose far end died while holding it as media_timeout too, saying it was held', async () => {
    const t = setup({ mediaTimeoutMs: 60_000, mediaHoldTimeoutMs: 1_800_000 });
    await t.run();
    expect(t.mediaWatch()?.bounds).toEqual({ timeoutMs: 60_000, holdTimeoutMs: 1_800_000 });
    t.mediaWatch()!.onTimeout(true);
    await t.call.closed;
    expect(t.ends).toEqual(['media_timeout']);
    expect(t.session.ends).toEqual(['caller_hangup']);
    expect(t.warnings).toEqual([
      {
        fields: expect.objectContaining({ call_id: t.call.id, media_hold_timeout_seconds: 1800 }),
        message: 'no RTP or RTCP from the far end while it held the call: hanging up (media_timeout)',
      },
    ]);
  });

  it("the caller's BYE records `remote` and ends the running session as caller_hangup", async () => {
    const t = setup();
    await t.run();
    await t.call.remoteEnded();
    await t.call.closed;
    expect(t.ends).toEqual(['remote']);
    expect(t.session.ends).toEqual(['caller_hangup']);
  });

  it('is over the moment it ends, before its teardown (the session still running) has closed it', async () => {
    const t = setup();
    await t.run();
    let closed = false;
    void t.call.closed.then(() => (closed = true));
    await t.call.hangup('workflow');
    await t.call.over;
    expect(closed).toBe(false);
    t.session.finish();
    await t.call.closed;
  });

  it('closes its media (the RTP port) as it ends, while the session and the channel still unwind', async () => {
    const t = setup();
    await t.run();
    await t.call.hangup('workflow');
    await new Promise<void>((r) => setImmediate(r));
    expect(t.counts()).toEqual({ rtpClosed: 1, channelClosed: 0 });
    t.session.finish();
    await t.call.closed;
    expect(t.counts()).toEqual({ rtpClosed: 1, channelClosed: 1 });
  });

  it("a warm transfer's announcement is metered with the call's tts_characters", async () => {
    let endBridge!: () => void;
    const t = setup({
      transferer: async (ctx) => {
        ctx.meterTts?.('A caller for you'.length);
        return { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
      },
    });
    await t.run();
    await t.control().transfer('sip:human@example.com', { ...blind, mode: 'warm' });
    t.session.finish();
    endBridge();
    await t.call.closed;
    expect(t.usage).toEqual([
      { metric: 'tts_characters', quantity: 42 + 16 },
      { metric: 'stt_seconds', quantity: 2 },
    ]);
  });
});
