import { describe, expect, it, vi } from 'vitest';
import { FakeCallMedia } from '../../../test/support/voice-media.js';
import { FakeSttProvider, FakeTtsProvider } from '../../../test/support/voice-providers.js';
import type { OutputTiming } from '../channel.js';
import { EspeakTtsProvider } from '../../providers/tts/espeak.js';
import type { TtsProvider } from '../../providers/tts/tts.types.js';
import { FakeClock } from '../../shared/clock.js';
import { VoicePipeline } from './voice-pipeline.js';

const drain = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function setup<T extends TtsProvider = FakeTtsProvider>(tts: T = new FakeTtsProvider() as unknown as T) {
  const clock = new FakeClock();
  const media = new FakeCallMedia(clock);
  const stt = new FakeSttProvider();
  const logger = { warn: vi.fn() };
  const pipeline = new VoicePipeline({ clock, media, tts, voice: 'en', language: 'en-US', stt, logger });
  return { clock, media, stt, tts, logger, pipeline, signal: new AbortController().signal };
}

/** Runs the fake clock in 5 ms steps until `p` settles. */
async function run<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  void p.finally(() => (done = true));
  while (!done) {
    await drain();
    clock.advance(5);
  }
  return p;
}

describe('VoicePipeline voice settings', () => {
  it("speaks with the agent's voice and language from the say that passes them on, for later speech too", async () => {
    const { clock, tts, pipeline, signal } = setup();
    await run(clock, pipeline.say('Hi.', { bargeIn: false, signal }));
    await run(
      clock,
      pipeline.say('Hello.', { bargeIn: false, signal, voice: { voice: 'en+f3', language: 'en-GB' } }),
    );
    await run(clock, pipeline.say('Bye.', { bargeIn: false, signal }));
    // A null voice (the agent has none) keeps the current one.
    await run(clock, pipeline.say('Again.', { bargeIn: false, signal, voice: { voice: null } }));
    expect(tts.requests.map((r) => [r.text, r.voice, r.language])).toEqual([
      ['Hi.', 'en', 'en-US'],
      ['Hello.', 'en+f3', 'en-GB'],
      ['Bye.', 'en+f3', 'en-GB'],
      ['Again.', 'en+f3', 'en-GB'],
    ]);
    expect(pipeline.voiceSettings).toEqual({ voice: 'en+f3', language: 'en-GB' });
  });

  it("hears the agent's stt_language: a listen in another language opens a new STT session in it", async () => {
    const { stt, pipeline, signal } = setup();
    void pipeline.listen({ signal, timeoutMs: 0 });
    await drain();
    expect(stt.sessions.map((s) => s.options.language)).toEqual(['en-US']);
    void pipeline.listen({ signal, timeoutMs: 0, language: 'en-US' });
    await drain();
    expect(stt.sessions).toHaveLength(1);
    void pipeline.listen({ signal, timeoutMs: 0, language: 'fr-FR' });
    await drain();
    expect(stt.sessions.map((s) => s.options.language)).toEqual(['en-US', 'fr-FR']);
    expect(stt.sessions[0]!.closed).toBe(true);
  });

  it('tells the STT session what each listen expects', async () => {
    const { stt, pipeline, signal } = setup();
    void pipeline.listen({ signal, timeoutMs: 0, hints: { phrases: ['billing'] } });
    await drain();
    expect(stt.session.options.hints).toEqual({ phrases: ['billing'] });
    void pipeline.listen({ signal, timeoutMs: 0, hints: { digits: true } });
    void pipeline.listen({ signal, timeoutMs: 0 });
    expect(stt.session.expected).toEqual([{ digits: true }, null]);
  });
});

describe('VoicePipeline output timing', () => {
  it('reports when the first audio came from TTS and when its first packet left', async () => {
    const { clock, pipeline, signal } = setup(new FakeTtsProvider({ msPerChar: 50 }));
    const timings: OutputTiming[] = [];
    clock.advance(1000);
    await run(
      clock,
      pipeline.say('Hello there.', { bargeIn: false, signal, onStarted: (t) => timings.push(t) }),
    );
    expect(timings).toHaveLength(1);
    expect(timings[0]!.firstAudioAt).toBe(1000);
    // The fake media sends continuously: the first look after queuing sees audio gone.
    expect(timings[0]!.firstPacketAt).toBe(1005);
  });

  it('reports a start without output when there is nothing to say', async () => {
    const { clock, pipeline, signal } = setup();
    const timings: OutputTiming[] = [];
    await run(clock, pipeline.say('  ', { bargeIn: false, signal, onStarted: (t) => timings.push(t) }));
    expect(timings).toEqual([{}]);
  });
});

describe('VoicePipeline without speech output', () => {
  it('goes on when espeak-ng is missing: the say resolves, and the log says what was not played and why', async () => {
    const missing = setup(new EspeakTtsProvider({ command: '/nonexistent/espeak-ng' }));
    const timings: OutputTiming[] = [];
    await expect(
      run(
        missing.clock,
        missing.pipeline.say('Your balance is four dollars.', {
          bargeIn: false,
          signal: missing.signal,
          onStarted: (t) => timings.push(t),
        }),
      ),
    ).resolves.toEqual({ bargedIn: false });
    expect(missing.logger.warn).toHaveBeenCalledWith(
      { provider: 'tts_vendor_1', text: 'Your balance is four dollars.' },
      expect.stringMatching(
        /speech output unavailable, not played: .*\/nonexistent\/espeak-ng is not installed \(apt-get install espeak-ng\)/,
      ),
    );
    expect(timings).toEqual([{}]);
    expect(missing.media.played).toHaveLength(0);
  });
});
