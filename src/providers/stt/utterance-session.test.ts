import { describe, expect, it } from 'vitest';
import { concat, frames, silence, spoken } from '../../../test/support/generated-audio.js';
import { FakeClock } from '../../shared/clock.js';
import { SttError, type SttEvent, type SttSession } from './stt.types.js';
import {
  UtteranceSttProvider,
  type UtteranceRecognizer,
  type UtteranceRequest,
} from './utterance-session.js';

class ScriptedRecognizer implements UtteranceRecognizer {
  readonly id = 'stt_vendor_1';
  readonly engine = 'scripted';
  readonly requests: UtteranceRequest[] = [];
  warmed: (string | undefined)[] = [];
  constructor(
    private readonly answer: (r: UtteranceRequest) => string | Error,
    private readonly clock?: FakeClock,
  ) {}
  warm(language?: string): void {
    this.warmed.push(language);
  }
  async recognize(r: UtteranceRequest) {
    this.requests.push(r);
    this.clock?.advance(40);
    const a = this.answer(r);
    if (a instanceof Error) throw a;
    return { text: a, confidence: 0.7 };
  }
}

async function all(session: SttSession): Promise<SttEvent[]> {
  const closing = session.close();
  const out: SttEvent[] = [];
  for await (const e of session.events) out.push(e);
  await closing;
  return out;
}

describe('UtteranceSttProvider (VAD-cut utterances, one recognition each)', () => {
  it('reports speech as it starts and one final transcript per utterance, with its offsets', async () => {
    const clock = new FakeClock();
    const rec = new ScriptedRecognizer((r) => `heard ${r.pcm.length}`, clock);
    const provider = new UtteranceSttProvider(rec, { clock });
    expect(provider.engine).toBe('scripted');
    const session = await provider.start({
      sampleRate: 16000,
      language: 'en-GB',
      hints: { phrases: ['yes'] },
    });
    expect(rec.warmed).toEqual(['en-GB']);
    const yes = await spoken('yes');
    const first = concat(silence(600), yes, silence(1200));
    for (const f of frames(first)) session.sendAudio(f);
    // The first recognition answers before the caller speaks again, as in real time.
    for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    for (const f of frames(concat(yes, silence(1200)))) session.sendAudio(f);
    const pcm = concat(first, yes, silence(1200));
    const events = await all(session);
    expect(events.map((e) => e.type)).toEqual([
      'speech_started',
      'transcript',
      'speech_started',
      'transcript',
    ]);
    const [start1, t1] = events as [
      Extract<SttEvent, { type: 'speech_started' }>,
      Extract<SttEvent, { type: 'transcript' }>,
    ];
    expect(start1.atMs).toBeGreaterThanOrEqual(600);
    expect(t1).toMatchObject({ isFinal: true, speechFinal: true, confidence: 0.7, recognitionMs: 40 });
    // The utterance starts 100 ms before the detected start (pre-roll).
    expect(t1.startMs).toBe(start1.atMs - 100);
    expect(rec.requests).toHaveLength(2);
    expect(rec.requests[0]).toMatchObject({
      sampleRate: 16000,
      language: 'en-GB',
      hints: { phrases: ['yes'] },
    });
    expect(t1.text).toBe(`heard ${rec.requests[0]!.pcm.length}`);
    // The span ends where the speech did; the audio recognised runs 100 ms past it (tail).
    expect(t1.durationMs).toBe((rec.requests[0]!.pcm.length * 1000) / 16000 - 100);
    expect(session.audioMs).toBe((pcm.length * 1000) / 16000);
  });

  it('recognises nothing in silence, and decodes with the hints the listener set last', async () => {
    const rec = new ScriptedRecognizer(() => 'no');
    const session = await new UtteranceSttProvider(rec).start({ sampleRate: 16000 });
    for (const f of frames(silence(2000))) session.sendAudio(f);
    session.expect!({ digits: true });
    for (const f of frames(concat(await spoken('no'), silence(1000)))) session.sendAudio(f);
    const events = await all(session);
    expect(events.map((e) => e.type)).toEqual(['speech_started', 'transcript']);
    expect(rec.requests.map((r) => r.hints)).toEqual([{ digits: true }]);
  });

  it('finalize() cuts an utterance in progress, and close() recognises what is pending', async () => {
    const rec = new ScriptedRecognizer(() => 'cut');
    const session = await new UtteranceSttProvider(rec).start({ sampleRate: 16000 });
    const words = await spoken('please transfer me to billing');
    const half = words.subarray(0, Math.floor(words.length / 2));
    for (const f of frames(concat(silence(300), half))) session.sendAudio(f);
    session.finalize();
    for (const f of frames(words.subarray(half.length))) session.sendAudio(f);
    const events = await all(session);
    expect(events.filter((e) => e.type === 'transcript')).toHaveLength(2);
    expect(rec.requests[0]!.pcm.length).toBeLessThan(half.length + 16000 * 0.2);
  });

  it('fails the events with SttError when the recogniser fails', async () => {
    const rec = new ScriptedRecognizer(() => new Error('model missing'));
    const session = await new UtteranceSttProvider(rec).start({ sampleRate: 16000 });
    for (const f of frames(concat(await spoken('yes'), silence(1000)))) session.sendAudio(f);
    const err = await all(session).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SttError);
    expect((err as Error).message).toContain('model missing');
  });

  it('an abort ends the events at once with its reason', async () => {
    const ctl = new AbortController();
    const session = await new UtteranceSttProvider(new ScriptedRecognizer(() => 'x')).start({
      signal: ctl.signal,
    });
    const next = session.events[Symbol.asyncIterator]().next();
    ctl.abort(new Error('hangup'));
    await expect(next).rejects.toThrow('hangup');
  });

  it('close() waits for a recognition stuck behind a backlog only up to closeLimitMs, then aborts it', async () => {
    const clock = new FakeClock();
    const signals: AbortSignal[] = [];
    const stuck: UtteranceRecognizer = {
      id: 'stt_vendor_1',
      // A backlog that never reaches this utterance: answers only by rejecting on abort.
      recognize: (r) =>
        new Promise((_, reject) => {
          signals.push(r.signal);
          r.signal.addEventListener('abort', () => reject(r.signal.reason as Error), { once: true });
        }),
    };
    const session = await new UtteranceSttProvider(stuck, { clock, closeLimitMs: 3000 }).start({
      sampleRate: 16000,
    });
    for (const f of frames(concat(silence(300), await spoken('yes'), silence(1000)))) session.sendAudio(f);
    let closed = false;
    const closing = session.close().then(() => (closed = true));
    const events: SttEvent[] = [];
    const reading = (async () => {
      for await (const e of session.events) events.push(e);
    })();
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
    expect(signals).toHaveLength(1);
    clock.advance(2999);
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
    expect(closed).toBe(false);
    expect(signals[0]!.aborted).toBe(false);
    clock.advance(1);
    await closing;
    await reading;
    expect(signals[0]!.aborted).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['speech_started']);
  });
});
