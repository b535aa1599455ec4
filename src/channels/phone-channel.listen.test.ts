import { describe, expect, it } from 'vitest';
import { drain, setup, speakFrames, track } from './testing/voice-channel.js';
import { SttError } from '../providers/stt/stt.types.js';

describe('PhoneChannel.listen', () => {
  it('returns null when the caller stays silent for the timeout', async () => {
    const { clock, channel, signal } = setup();
    const heard = track(channel.listen({ signal, timeoutMs: 3000 }));
    await drain();
    clock.advance(2999);
    await drain();
    expect(heard.settled()).toBe(false);
    clock.advance(1);
    await drain();
    expect(heard.value()).toBeNull();
  });

  it('joins the final spans into one turn that ended when the caller stopped speaking', async () => {
    const { clock, media, stt, channel, signal } = setup({ endpointingMs: 400 });
    const heard = track(channel.listen({ signal, timeoutMs: 10_000 }));
    await drain();
    expect(stt.session.options).toMatchObject({ sampleRate: 16000, language: 'en-US', endpointingMs: 400 });
    await speakFrames(clock, media, 120); // 2.4 s of caller audio
    stt.session.speechStarted(100);
    stt.session.interim('I want', 100, 500);
    stt.session.final('I want a table', 100, 1100);
    await drain();
    expect(heard.settled()).toBe(false);
    stt.session.final('for two', 1300, 500, true);
    await drain();
    // The last word ended 1.8 s into the audio: that frame arrived at 1800, although the vendor
    // said so at 2400. latency_ms is measured from here; a streaming vendor's end of turn comes
    // with its transcript, so both were had at 2400.
    expect(heard.value()).toEqual({
      text: 'I want a table for two',
      endedAt: 1800,
      detectedAt: 2400,
      transcribedAt: 2400,
    });
    expect(stt.sessions).toHaveLength(1);
    expect(stt.session.samples).toBe(120 * 320);
  });

  it('the silence timeout restarts while the caller talks, and an utterance_end ends a turn', async () => {
    const { clock, media, stt, channel, signal } = setup();
    const heard = track(channel.listen({ signal, timeoutMs: 1000 }));
    await drain();
    await speakFrames(clock, media, 40);
    stt.session.speechStarted(700);
    await drain();
    await speakFrames(clock, media, 40); // 1600 ms: past the first timeout, not past the restarted one
    stt.session.final('yes', 700, 300);
    await drain();
    await speakFrames(clock, media, 20);
    expect(heard.settled()).toBe(false);
    stt.session.utteranceEnd(950);
    await drain();
    expect(heard.value()).toEqual({ text: 'yes', endedAt: 1000, detectedAt: 2000, transcribedAt: 2000 });
  });

  it('when the timeout runs out mid-utterance, the words heard are the turn and are not repeated', async () => {
    const { clock, media, stt, channel, signal } = setup();
    const heard = track(channel.listen({ signal, timeoutMs: 2000 }));
    await drain();
    await speakFrames(clock, media, 25);
    stt.session.interim('my account', 0, 500);
    await drain();
    clock.advance(1999);
    await drain();
    expect(heard.settled()).toBe(false);
    clock.advance(1);
    await drain();
    // Cut by the timeout: the turn was decided, and its words taken, when the timer ran out.
    expect(heard.value()).toEqual({
      text: 'my account',
      endedAt: 500,
      detectedAt: 2500,
      transcribedAt: 2500,
    });
    expect(stt.session.finalizes).toBe(1);
    stt.session.final('my account number', 0, 900, true);
    stt.session.final('is blocked', 3000, 800, true);
    await drain();
    await expect(channel.listen({ signal, timeoutMs: 0 })).resolves.toMatchObject({ text: 'is blocked' });
  });

  it('holds the caller audio while STT connects, then sends it in order', async () => {
    const { clock, media, stt, channel, signal } = setup();
    stt.slow = true;
    const heard = track(channel.listen({ signal }));
    await speakFrames(clock, media, 10);
    stt.open();
    await drain();
    await speakFrames(clock, media, 5);
    expect(stt.session.samples).toBe(15 * 320);
    stt.session.final('hi', 0, 150, true);
    await drain();
    // Offset 150 is 10 ms before the end of the frame that arrived at 160.
    expect(heard.value()).toEqual({ text: 'hi', endedAt: 150, detectedAt: 300, transcribedAt: 300 });
  });

  it('a failed STT session fails the waiting listen with its error; the next listen opens another', async () => {
    const { stt, channel, logger, signal } = setup();
    const heard = channel.listen({ signal });
    await drain();
    const err = new SttError('fake_stt: connection closed (1011)', 'fake_stt', 'stream');
    stt.session.fail(err);
    await expect(heard).rejects.toBe(err);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const again = track(channel.listen({ signal }));
    await drain();
    expect(stt.sessions).toHaveLength(2);
    stt.session.final('hello again', 0, 500, true);
    await drain();
    expect(again.value()).toMatchObject({ text: 'hello again' });
  });

  it('an STT refusal during a prompt loses only speech barge-in; the next listen reports it', async () => {
    const { clock, media, stt, channel, logger, signal } = setup();
    const refusal = new SttError('fake_stt: HTTP 401: bad key', 'fake_stt', 'http', { status: 401 });
    stt.refuseNext = refusal;
    const said = track(channel.say('Hi there.', { bargeIn: true, signal }));
    await drain();
    expect(logger.warn).toHaveBeenCalledTimes(1);
    clock.advance(450);
    await drain();
    expect(said.value()).toEqual({ bargedIn: false });
    // The next prompt does not knock again (nor log again) before a listen has reported it.
    const again = channel.say('Hello?', { bargeIn: true, signal });
    await drain();
    clock.advance(300);
    await again;
    expect(stt.starts).toBe(1);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    await expect(channel.listen({ signal })).rejects.toBe(refusal);
    expect(media.stops).toEqual([]);
    // Reported: the listen after that tries again.
    const heard = track(channel.listen({ signal }));
    await drain();
    expect(stt.starts).toBe(2);
    stt.session.final('hello', 0, 400, true);
    await drain();
    expect(heard.value()).toMatchObject({ text: 'hello' });
  });

  it('a zero timeout is a poll: null at once when nothing was heard', async () => {
    const { stt, channel, signal } = setup();
    await expect(channel.listen({ signal, timeoutMs: 0 })).resolves.toBeNull();
    await drain();
    expect(stt.sessions).toHaveLength(1);
  });

  it('rejects on abort', async () => {
    const { channel, ctl, signal } = setup();
    const heard = channel.listen({ signal, timeoutMs: 5000 });
    ctl.abort(new Error('bye'));
    await expect(heard).rejects.toThrow('bye');
  });

  it('without an STT provider, waits out the timeout and returns null, warning once per call', async () => {
    const { clock, channel, logger, signal } = setup({ stt: false });
    for (let i = 0; i < 2; i++) {
      const heard = track(channel.listen({ signal, timeoutMs: 4000 }));
      clock.advance(3999);
      await drain();
      expect(heard.settled()).toBe(false);
      clock.advance(1);
      await drain();
      expect(heard.value()).toBeNull();
    }
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(String(logger.warn.mock.calls[0]![0])).toMatch(/speech-to-text/);
    // A prompt still barges in by key.
    const said = track(channel.say('Press a key.', { bargeIn: true, signal }));
    await drain();
    expect(said.settled()).toBe(false);
  });
});
