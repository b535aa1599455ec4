import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { concat, frames, silence, spoken } from '../../../test/support/generated-audio.js';
import {
  startFakeTranscriptionServer,
  type FakeTranscriptionServer,
} from '../../../test/support/fake-voice-servers/transcriptions.js';
import { FakeClock } from '../../shared/clock.js';
import { WavStreamReader } from '../tts/wav.js';
import { SttError, type SttEvent } from './stt.types.js';
import { UtteranceSttProvider } from './utterance-session.js';
import { isoLanguage, OpenAiTranscriptionRecognizer } from './vendor-1-openai.js';

let server: FakeTranscriptionServer;
beforeEach(async () => {
  server = await startFakeTranscriptionServer();
});
afterEach(async () => {
  await server.close();
});

const signal = (): AbortSignal => new AbortController().signal;

describe('stt_vendor_1 over the OpenAI-compatible transcription endpoint', () => {
  it('posts the utterance as a WAV with model, language, format and the expected phrases', async () => {
    server.answer = () => ({ text: ' Billing, please. ' });
    const rec = new OpenAiTranscriptionRecognizer({
      baseUrl: `${server.baseUrl}/v1/`,
      apiKey: 'sk-local',
      model: 'large-v3',
    });
    const pcm = Int16Array.from({ length: 8000 }, (_, i) => (i % 50) * 300 - 7000);
    const result = await rec.recognize({
      pcm,
      sampleRate: 16000,
      language: 'en-US',
      hints: { phrases: ['billing', 'sales'] },
      signal: signal(),
    });
    expect(result.text).toBe(' Billing, please. ');
    const [req] = server.requests;
    expect(req!.path).toBe('/v1/audio/transcriptions');
    expect(req!.headers.authorization).toBe('Bearer sk-local');
    expect(req!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(req!.fields).toEqual({
      model: 'large-v3',
      response_format: 'json',
      language: 'en',
      prompt: 'billing, sales',
    });
    expect(req!.file).toMatchObject({ name: 'utterance.wav', type: 'audio/wav' });
    const wav = new WavStreamReader();
    const data = wav.push(req!.file!.bytes);
    expect(wav.format).toMatchObject({ audioFormat: 1, channels: 1, sampleRate: 16000, bitsPerSample: 16 });
    expect(data.length).toBe(16000);
    expect(Buffer.from(data).readInt16LE(2 * 77)).toBe(pcm[77]);
  });

  it('runs per utterance behind the VAD: each spoken turn is one request and one final transcript', async () => {
    let n = 0;
    server.answer = () => ({ text: ++n === 1 ? 'yes' : 'no thanks' });
    const provider = new UtteranceSttProvider(new OpenAiTranscriptionRecognizer({ baseUrl: server.baseUrl }));
    const session = await provider.start({ sampleRate: 16000, language: 'de-DE' });
    for (const f of frames(concat(silence(400), await spoken('yes'), silence(1200)))) session.sendAudio(f);
    await new Promise<void>((r) => setTimeout(r, 0));
    for (const f of frames(concat(await spoken('no thanks'), silence(1200)))) session.sendAudio(f);
    const closing = session.close();
    const events: SttEvent[] = [];
    for await (const e of session.events) events.push(e);
    await closing;
    const finals = events.filter((e) => e.type === 'transcript');
    expect(finals.map((e) => e.type === 'transcript' && [e.text, e.isFinal, e.speechFinal])).toEqual([
      ['yes', true, true],
      ['no thanks', true, true],
    ]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.fields.language).toBe('de');
    // No key against a custom base URL: no Authorization header at all.
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('fails with the status and the server message on an error answer', async () => {
    server.answer = () => ({ status: 500, body: JSON.stringify({ error: { message: 'model not loaded' } }) });
    const err = await new OpenAiTranscriptionRecognizer({ baseUrl: server.baseUrl })
      .recognize({ pcm: silence(100), sampleRate: 16000, signal: signal() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SttError);
    expect(err).toMatchObject({ status: 500, kind: 'http', retryable: true });
    expect((err as Error).message).toContain('model not loaded');
  });

  it('fails a reply without text as a protocol error', async () => {
    server.answer = () => ({ status: 200, body: '{"segments":[]}' });
    await expect(
      new OpenAiTranscriptionRecognizer({ baseUrl: server.baseUrl }).recognize({
        pcm: silence(100),
        sampleRate: 16000,
        signal: signal(),
      }),
    ).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('times out on the injected clock, and an abort ends the request with its reason', async () => {
    server.answer = () => 'hang';
    const clock = new FakeClock();
    const rec = new OpenAiTranscriptionRecognizer({ baseUrl: server.baseUrl, clock, timeoutMs: 3000 });
    const pending = rec.recognize({ pcm: silence(100), sampleRate: 16000, signal: signal() });
    pending.catch(() => {});
    while (server.requests.length === 0) await new Promise<void>((r) => setTimeout(r, 5));
    clock.advance(3000);
    await expect(pending).rejects.toMatchObject({ kind: 'timeout' });

    const ctl = new AbortController();
    const aborted = rec.recognize({ pcm: silence(100), sampleRate: 16000, signal: ctl.signal });
    while (server.requests.length === 1) await new Promise<void>((r) => setTimeout(r, 5));
    ctl.abort(new Error('hangup'));
    await expect(aborted).rejects.toThrow('hangup');
  });

  it('needs a key for the public endpoint; maps BCP 47 to ISO-639-1', async () => {
    await expect(
      new OpenAiTranscriptionRecognizer().recognize({
        pcm: silence(100),
        sampleRate: 16000,
        signal: signal(),
      }),
    ).rejects.toThrow(/STT_VENDOR_1_API_KEY/);
    expect(new OpenAiTranscriptionRecognizer().baseUrl).toBe('https://api.openai.com');
    expect(isoLanguage('en-US')).toBe('en');
    expect(isoLanguage('pt_BR')).toBe('pt');
    expect(isoLanguage('yue-HK')).toBeUndefined();
    expect(isoLanguage(undefined)).toBeUndefined();
  });
});
