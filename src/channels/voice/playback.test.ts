import { describe, expect, it } from 'vitest';
import { FakeCallMedia } from '../../../test/support/voice-media.js';
import { FakeTtsProvider } from '../../../test/support/voice-providers.js';
import { FakeClock } from '../../shared/clock.js';
import { DRAIN_POLL_MAX_MS, playSpeech } from './playback.js';

const drain = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function setup() {
  const clock = new FakeClock();
  const media = new FakeCallMedia(clock);
  const tts = new FakeTtsProvider({ msPerChar: 100 });
  return { clock, media, tts, deps: { clock, media, tts } };
}

describe('playSpeech', () => {
  it('notices a queue emptied elsewhere within one poll, not at the end of the audio', async () => {
    const { clock, media, deps } = setup();
    let done = false;
    const p = playSpeech(deps, { text: 'x'.repeat(100), voice: 'v', signal: new AbortController().signal });
    void p.then(() => (done = true));
    await drain();
    expect(media.queuedMs).toBe(10_000);
    clock.advance(1000);
    media.stopPlayback(); // e.g. the call controller flushed the sender
    clock.advance(DRAIN_POLL_MAX_MS);
    await drain();
    expect(done).toBe(true);
  });

  it('does not start synthesis when already aborted', async () => {
    const { media, tts, deps } = setup();
    const signal = AbortSignal.abort(new Error('too late'));
    await expect(playSpeech(deps, { text: 'hello', voice: 'v', signal })).rejects.toThrow('too late');
    expect(tts.requests).toEqual([]);
    expect(media.stops).toEqual([]);
  });

  it('passes the voice, language and the call rate to the provider', async () => {
    const { clock, tts, deps } = setup();
    const p = playSpeech(deps, {
      text: 'hi',
      voice: 'Rachel',
      language: 'de-DE',
      signal: new AbortController().signal,
    });
    await drain();
    clock.advance(200);
    await p;
    expect(tts.requests.map(({ signal: _s, ...r }) => r)).toEqual([
      { text: 'hi', voice: 'Rachel', language: 'de-DE', sampleRate: 16000 },
    ]);
  });
});
