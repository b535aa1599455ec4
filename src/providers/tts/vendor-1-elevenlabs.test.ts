import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  pcmBytes,
  ramp,
  startFakeTtsServer,
  type FakeTtsServer,
} from '../../../test/support/fake-voice-servers/tts.js';
import { FakeClock } from '../../shared/clock.js';
import { linearToUlaw, ulawToLinear } from '../../audio/codecs/g711.js';
import { TtsError } from './tts.types.js';
import {
  StreamingTtsProvider,
  type StreamingTtsOptions,
  type TtsCallMetrics,
} from './vendor-1-elevenlabs.js';

let server: FakeTtsServer;
let clock: FakeClock;
let sleeps: number[];
let metrics: TtsCallMetrics[];
const providers: StreamingTtsProvider[] = [];

function make(options: StreamingTtsOptions = {}): StreamingTtsProvider {
  const p = new StreamingTtsProvider({
    apiKey: 'xi-test',
    baseUrl: server.baseUrl,
    clock,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
    onMetrics: (m) => void metrics.push(m),
    ...options,
  });
  providers.push(p);
  return p;
}

function iterate<T>(stream: AsyncIterable<T>): AsyncIterator<T> {
  return stream[Symbol.asyncIterator]();
}

async function all(stream: AsyncIterable<Int16Array>): Promise<Int16Array> {
  const parts: number[] = [];
  for await (const chunk of stream) parts.push(...chunk);
  return Int16Array.from(parts);
}

beforeEach(async () => {
  server = await startFakeTtsServer();
  clock = new FakeClock();
  sleeps = [];
  metrics = [];
});
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
  await server.close();
});

describe('tts_vendor_1 (ElevenLabs-style HTTP streaming)', () => {
  it('streams 16 kHz PCM, reassembling samples split across chunks, and sends the documented request', async () => {
    const samples = ramp(4001);
    server.reply({ bytes: pcmBytes(samples), chunkBytes: 333 });
    const out = await all(
      make({ modelId: 'eleven_turbo_v2_5' }).synthesize({
        text: 'Hello caller',
        voice: 'voice123',
        language: 'en-GB',
      }),
    );
    expect(out).toEqual(samples);
    const [req] = server.requests;
    expect(req!.url).toBe('/v1/text-to-speech/voice123/stream?output_format=pcm_16000');
    expect(req!.headers['xi-api-key']).toBe('xi-test');
    expect(req!.body).toEqual({ text: 'Hello caller', model_id: 'eleven_turbo_v2_5', language_code: 'en' });
    expect(metrics[0]).toMatchObject({ outcome: 'ok', characters: 12, audioMs: 4001 / 16, attempts: 1 });
  });

  it('asks for a native rate when the caller wants one', async () => {
    server.reply({ bytes: pcmBytes(ramp(100)) });
    await all(make().synthesize({ text: 'x', voice: 'v', sampleRate: 24000 }));
    expect(server.requests[0]!.url).toContain('output_format=pcm_24000');
  });

  it('resamples from 16 kHz to a rate the vendor does not stream', async () => {
    server.reply({ bytes: pcmBytes(new Int16Array(1600)) });
    const out = await all(make().synthesize({ text: 'x', voice: 'v', sampleRate: 32000 }));
    expect(server.requests[0]!.url).toContain('output_format=pcm_16000');
    expect(out.length).toBeGreaterThanOrEqual(3198);
    expect(out.length).toBeLessThanOrEqual(3202);
  });

  it('decodes µ-law at 8 kHz and converts it to the pipeline rate', async () => {
    const tone = Int16Array.from({ length: 800 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 400 * i) / 8000)),
    );
    const codes = Uint8Array.from(tone, (s) => linearToUlaw(s));
    server.reply({ bytes: codes });
    const out = await all(make({ format: 'ulaw' }).synthesize({ text: 'x', voice: 'v', sampleRate: 8000 }));
    expect(server.requests[0]!.url).toContain('output_format=ulaw_8000');
    expect(Array.from(out)).toEqual(Array.from(codes, (c) => ulawToLinear(c)));
  });

  it('retries a 429 before any audio and reports a final error as TtsError', async () => {
    server.replyRaw({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '1' },
      body: { detail: { message: 'busy' } },
    });
    server.reply({ bytes: pcmBytes(ramp(10)) });
    expect((await all(make().synthesize({ text: 'x', voice: 'v' }))).length).toBe(10);
    expect(sleeps).toEqual([1000]);

    server.replyRaw({
      kind: 'error',
      status: 401,
      body: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } },
    });
    const err = await all(make().synthesize({ text: 'x', voice: 'v' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TtsError);
    expect(err).toMatchObject({ status: 401, retryable: false, provider: 'tts_vendor_1' });
    expect((err as Error).message).toContain('Invalid API key');
  });

  it('times out on the injected clock when no audio comes', async () => {
    server.replyRaw({ kind: 'hang' });
    const it = iterate(make({ timeouts: { firstByteMs: 3000 } }).synthesize({ text: 'x', voice: 'v' }));
    const next = it.next();
    await server.waitForRequests(1);
    clock.advance(3000);
    const err = await next.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TtsError);
    expect(err).toMatchObject({ kind: 'timeout' });
  });

  it('stops mid-stream on abort (barge-in) and closes the connection', async () => {
    server.replyRaw({ kind: 'stream', frames: [pcmBytes(ramp(50)), pcmBytes(ramp(50))], holdAfter: 1 });
    const ctl = new AbortController();
    const it = iterate(make().synthesize({ text: 'long answer', voice: 'v', signal: ctl.signal }));
    expect((await it.next()).value).toHaveLength(50);
    const next = it.next();
    const gone = server.waitForClientGone();
    ctl.abort(new Error('barge-in'));
    await expect(next).rejects.toThrow('barge-in');
    await gone;
  });

  it('needs a key for the public endpoint and sends nothing for empty text', async () => {
    const p = new StreamingTtsProvider({});
    await expect(all(p.synthesize({ text: 'x', voice: 'v' }))).rejects.toThrow(/TTS_VENDOR_1_API_KEY/);
    expect(await all(make().synthesize({ text: '  ', voice: 'v' }))).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });
});
