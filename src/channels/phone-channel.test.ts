import { describe, expect, it } from 'vitest';
import { drain, setup, speakFrames, track } from './testing/voice-channel.js';
import { TtsError } from '../providers/tts/tts.types.js';

describe('PhoneChannel basics', () => {
  it('is a phone line with real telephony and keypad', () => {
    const { channel } = setup();
    expect(channel.kind).toBe('phone');
    expect(channel.capabilities).toEqual({ dtmf: true, telephony: true, simulated: false, speech: true });
  });

  it('delegates transfer, dial and hangup to the SIP side; hangup once', async () => {
    const { channel, control, signal } = setup();
    control.transferOutcome = { status: 'failed', reason: 'busy' };
    await expect(
      channel.transfer('tel:+15551230000', { mode: 'warm', announcement: 'A caller', signal }),
    ).resolves.toEqual({ status: 'failed', reason: 'busy' });
    await expect(channel.dial('sip:bob@example.com', { from: '+15550001111', signal })).resolves.toEqual({
      status: 'answered',
      callId: 'leg-2',
    });
    await channel.hangup();
    await channel.hangup();
    expect(control.calls).toEqual([
      { op: 'transfer', destination: 'tel:+15551230000', mode: 'warm', announcement: 'A caller' },
      { op: 'dial', destination: 'sip:bob@example.com', from: '+15550001111' },
      { op: 'hangup' },
    ]);
    const aborted = AbortSignal.abort(new Error('gone'));
    await expect(channel.transfer('tel:+1', { mode: 'blind', signal: aborted })).rejects.toThrow('gone');
    await expect(channel.dial('tel:+1', { signal: aborted })).rejects.toThrow('gone');
  });
});

describe('PhoneChannel.say', () => {
  it('plays TTS audio as it arrives and resolves once the queue has drained', async () => {
    const { clock, media, tts, channel, signal } = setup({ tts: { holdAfter: 1 } });
    const said = track(channel.say('Hello world!', { bargeIn: false, signal }));
    await drain();
    // 12 characters × 50 ms = 600 ms; the first 100 ms chunk plays while synthesis is still held.
    expect(media.playedSamples).toBe(1600);
    expect(tts.requests[0]).toMatchObject({
      text: 'Hello world!',
      voice: 'en-us',
      language: 'en-US',
      sampleRate: 16000,
    });
    tts.release();
    await drain();
    expect(media.playedSamples).toBe(9600);
    clock.advance(599);
    await drain();
    expect(said.settled()).toBe(false);
    clock.advance(1);
    await drain();
    expect(said.value()).toEqual({ bargedIn: false });
    expect(media.stops).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it('a key press barges in: playback stops at once, the stuck synthesis is abandoned, the key is kept', async () => {
    const { clock, media, tts, channel, signal } = setup({ tts: { holdAfter: 3 } });
    const said = track(channel.say('A long menu prompt that goes on', { bargeIn: true, signal }));
    await drain();
    clock.advance(150);
    media.pushDigit('7');
    expect(media.stops).toEqual([{ at: 150, droppedMs: 150 }]);
    await drain();
    // Still being made, the speech's length is unknown, and so is how much of it was heard.
    expect(said.value()).toEqual({ bargedIn: true });
    // The stuck vendor finally answers: nothing more reaches the caller, and its stream is ended.
    const played = media.playedSamples;
    tts.release();
    await drain();
    expect(media.playedSamples).toBe(played);
    expect(tts.returned).toBe(1);
    await expect(channel.nextDigit({ signal, timeoutMs: 0 })).resolves.toBe('7');
  });

  it('a barge-in tells how much of the text was heard: the share of its audio sent, to a whole word', async () => {
    const { clock, media, channel, signal } = setup();
    // 31 characters × 50 ms = 1550 ms of speech, all of it made at once.
    const said = track(channel.say('Hello there, how are you today?', { bargeIn: true, signal }));
    await drain();
    clock.advance(800);
    media.pushDigit('1');
    await drain();
    expect(media.stops).toEqual([{ at: 800, droppedMs: 750 }]);
    // 800 / 1550 of 31 characters is 16: "Hello there, how", which ends on a whole word.
    expect(said.value()).toEqual({ bargedIn: true, heardChars: 16 });

    const again = setup({ tts: {} });
    const cut = track(
      again.channel.say('Hello there, how are you today?', { bargeIn: true, signal: again.signal }),
    );
    await drain();
    again.clock.advance(700);
    again.media.pushDigit('1');
    await drain();
    // 700 / 1550 of 31 is 14, inside "how": the word cut in half counts as not heard.
    expect(cut.value()).toEqual({ bargedIn: true, heardChars: 12 });
  });

  it('speech barges in: voice activity or an interim with words, but not an empty interim', async () => {
    for (const how of ['speech_started', 'interim'] as const) {
      const { media, stt, channel, signal } = setup();
      const said = track(channel.say('Welcome to the clinic, how can I help?', { bargeIn: true, signal }));
      await drain();
      expect(stt.sessions).toHaveLength(1);
      stt.session.interim('   ');
      await drain();
      expect(said.settled()).toBe(false);
      if (how === 'speech_started') stt.session.speechStarted(300);
      else stt.session.interim('actually');
      await drain();
      // Cut in before any of it went out: none of it was heard.
      expect(said.value()).toEqual({ bargedIn: true, heardChars: 0 });
      expect(media.stops).toHaveLength(1);
    }
  });

  it('with bargeIn off, keys and speech do not interrupt; the key waits and the speech becomes the next turn', async () => {
    const { clock, media, stt, channel, signal } = setup();
    // A first listen opens STT (a bargeIn-off prompt alone would not).
    const first = track(channel.listen({ signal, timeoutMs: 100 }));
    await drain();
    clock.advance(100);
    await drain();
    expect(first.value()).toBeNull();
    const said = track(channel.say('Please listen carefully.', { bargeIn: false, signal }));
    await drain();
    media.pushDigit('3');
    stt.session.speechStarted();
    stt.session.final('operator', 0, 600, true);
    await drain();
    clock.advance(1199);
    await drain();
    expect(said.settled()).toBe(false);
    clock.advance(1);
    await drain();
    expect(said.value()).toEqual({ bargedIn: false });
    expect(media.stops).toEqual([]);
    await expect(channel.nextDigit({ signal, timeoutMs: 0 })).resolves.toBe('3');
    await expect(channel.listen({ signal, timeoutMs: 0 })).resolves.toMatchObject({ text: 'operator' });
  });

  it('an abort stops playback and rejects with the reason', async () => {
    const { clock, media, channel, ctl, signal } = setup();
    const said = track(channel.say('This will be cut short by a hangup.', { bargeIn: false, signal }));
    await drain();
    clock.advance(300);
    ctl.abort(new Error('caller hung up'));
    expect(media.stops).toHaveLength(1);
    await drain();
    expect(said.error()).toEqual(new Error('caller hung up'));
    await expect(channel.say('again', { bargeIn: false, signal })).rejects.toThrow('caller hung up');
  });

  it('a TTS failure rejects with the provider error and stops what was queued', async () => {
    const { media, channel, signal } = setup({ tts: { failAfter: 2 } });
    const err = await channel
      .say('Some words to speak here', { bargeIn: true, signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TtsError);
    expect((err as Error).message).toBe('fake_tts: HTTP 500: vendor exploded');
    expect(media.playedSamples).toBe(3200);
    expect(media.stops).toHaveLength(1);
  });

  it('empty text plays nothing and costs nothing', async () => {
    const { media, tts, channel, signal } = setup();
    await expect(channel.say('   ', { bargeIn: true, signal })).resolves.toEqual({ bargedIn: false });
    expect(media.playedSamples).toBe(0);
    expect(tts.requests).toHaveLength(0);
    expect(channel.usage().ttsCharacters).toBe(0);
  });
});

describe('PhoneChannel digits', () => {
  it('buffers keys from construction, in order, across prompts; clearDigits drops them', async () => {
    const { clock, media, channel, signal } = setup();
    media.pushDigit('1x#');
    await expect(channel.nextDigit({ signal })).resolves.toBe('1');
    await expect(channel.nextDigit({ signal })).resolves.toBe('#');
    media.pushDigit('9');
    channel.clearDigits();
    const next = track(channel.nextDigit({ signal, timeoutMs: 5000 }));
    clock.advance(4000);
    media.pushDigit('4');
    await drain();
    expect(next.value()).toBe('4');
    const late = track(channel.nextDigit({ signal, timeoutMs: 5000 }));
    clock.advance(5000);
    await drain();
    expect(late.value()).toBeNull();
  });

  it('rejects a waiting read on abort', async () => {
    const { channel, ctl, signal } = setup();
    const read = channel.nextDigit({ signal });
    ctl.abort(new Error('session deleted'));
    await expect(read).rejects.toThrow('session deleted');
  });
});

describe('PhoneChannel usage and close', () => {
  it('counts characters sent to TTS and seconds of audio sent to STT', async () => {
    const { clock, media, channel, signal } = setup();
    expect(channel.usage()).toEqual({ ttsCharacters: 0, sttSeconds: 0 });
    media.pushAudio(); // before any STT session: not sent, not billed
    const said = channel.say('Hello', { bargeIn: true, signal });
    await drain();
    clock.advance(250);
    await said;
    await channel.say('Hi there', { bargeIn: false, signal: AbortSignal.abort() }).catch(() => {});
    const heard = track(channel.listen({ signal, timeoutMs: 5000 }));
    await drain();
    await speakFrames(clock, media, 75); // 1.5 s
    clock.advance(5000);
    await drain();
    expect(heard.value()).toBeNull();
    expect(channel.usage()).toEqual({ ttsCharacters: 5, sttSeconds: 1.5 });
  });

  it('close() stops playback, ends STT, silences waiting reads and lets go of the media', async () => {
    const { clock, media, stt, channel, signal } = setup();
    const heard = track(channel.listen({ signal }));
    const key = track(channel.nextDigit({ signal }));
    await drain();
    await speakFrames(clock, media, 10);
    const said = track(channel.say('Still talking when the caller hangs up.', { bargeIn: false, signal }));
    await drain();
    await channel.close();
    await drain();
    expect(media.stops).toHaveLength(1);
    expect(stt.session.closed).toBe(true);
    expect(heard.value()).toBeNull();
    expect(key.value()).toBeNull();
    clock.advance(100);
    await drain();
    expect(said.value()).toEqual({ bargedIn: false });
    expect(media.listenerCounts).toEqual({ audio: 0, digit: 0 });
    expect(channel.usage().sttSeconds).toBe(0.2);
    await expect(channel.listen({ signal })).resolves.toBeNull();
  });
});
