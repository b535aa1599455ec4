// The phone channel over real providers: espeak-ng itself, and the tts_vendor_1 / stt_vendor_1
// adapters against their local fake servers. Time still runs on a FakeClock: the tests wait on
// the network (promises), never on wall-clock sleeps.
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSttServer, type FakeSttServer } from '../../test/support/fake-voice-servers/stt.js';
import {
  pcmBytes,
  ramp,
  startFakeTtsServer,
  type FakeTtsServer,
} from '../../test/support/fake-voice-servers/tts.js';
import { FakeCallControl, FakeCallMedia } from '../../test/support/voice-media.js';
import { FakeTtsProvider, observeTts } from '../../test/support/voice-providers.js';
import { LiveSttProvider } from '../providers/stt/vendor-1-deepgram.js';
import { EspeakTtsProvider } from '../providers/tts/espeak.js';
import type { TtsProvider } from '../providers/tts/tts.types.js';
import { StreamingTtsProvider } from '../providers/tts/vendor-1-elevenlabs.js';
import { FakeClock } from '../shared/clock.js';
import { PhoneChannel } from './phone-channel.js';

const drain = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function phone(tts: TtsProvider, stt: LiveSttProvider | null = null, clock = new FakeClock()) {
  const media = new FakeCallMedia(clock);
  const channel = new PhoneChannel({
    clock,
    media,
    control: new FakeCallControl(),
    tts,
    voice: 'en',
    language: 'en-US',
    stt,
  });
  return { clock, media, channel, signal: new AbortController().signal };
}

// Under CI a missing espeak-ng fails this suite instead of skipping it.
const espeakInstalled = spawnSync('espeak-ng', ['--version']).status === 0;
describe.runIf(espeakInstalled || Boolean(process.env.CI))('PhoneChannel with espeak-ng', () => {
  it('plays a spoken sentence of plausible length and resolves once it has been sent', async () => {
    expect(espeakInstalled, 'espeak-ng is not installed (apt-get install espeak-ng)').toBe(true);
    const tts = observeTts(new EspeakTtsProvider());
    const { clock, media, channel, signal } = phone(tts);
    let done = false;
    const said = channel.say('Thank you for calling Switchboard. How can I help?', {
      bargeIn: false,
      signal,
    });
    void said.then(() => (done = true));
    await tts.finished();
    await drain();
    const pcm = media.playedPcm();
    // About three seconds of speech at 175 words per minute; well under ten.
    expect(pcm.length).toBeGreaterThan(16000 * 1.5);
    expect(pcm.length).toBeLessThan(16000 * 10);
    expect(Math.max(...pcm.map(Math.abs))).toBeGreaterThan(2000);
    expect(media.played.length).toBeGreaterThan(1);
    const playMs = pcm.length / 16;
    clock.advance(Math.floor(playMs) - 1);
    await drain();
    expect(done).toBe(false);
    clock.advance(2);
    await said;
    expect(channel.usage().ttsCharacters).toBe(50);
  });
});

describe('PhoneChannel with tts_vendor_1 (fake server)', () => {
  let server: FakeTtsServer;
  let provider: StreamingTtsProvider;
  beforeEach(async () => {
    server = await startFakeTtsServer();
  });
  afterEach(async () => {
    await provider.close();
    await server.close();
  });

  it('starts playing before the vendor has finished, and plays exactly what it sent', async () => {
    const clock = new FakeClock();
    provider = new StreamingTtsProvider({ apiKey: 'xi', baseUrl: server.baseUrl, clock });
    const tts = observeTts(provider);
    const { media, channel, signal } = phone(tts, null, clock);
    const samples = ramp(8000);
    server.reply({ bytes: pcmBytes(samples), chunkBytes: 3200 }, { holdAfter: 1 });
    const said = channel.say('Your order has shipped.', { bargeIn: true, signal });
    await media.waitForPlayed(1600);
    expect(media.playedSamples).toBe(1600);
    server.release();
    await tts.finished();
    await drain();
    expect(media.playedPcm()).toEqual(samples);
    expect(server.requests[0]!.url).toBe('/v1/text-to-speech/en/stream?output_format=pcm_16000');
    clock.advance(500);
    await expect(said).resolves.toEqual({ bargedIn: false });
  });

  it('a key press during the stream stops playback and drops the vendor connection', async () => {
    const clock = new FakeClock();
    provider = new StreamingTtsProvider({ apiKey: 'xi', baseUrl: server.baseUrl, clock });
    const { media, channel, signal } = phone(provider, null, clock);
    server.reply({ bytes: pcmBytes(ramp(16000)), chunkBytes: 3200 }, { holdAfter: 1 });
    const said = channel.say('Press one for sales.', { bargeIn: true, signal });
    await media.waitForPlayed(1600);
    media.pushDigit('1');
    await expect(said).resolves.toEqual({ bargedIn: true });
    await server.waitForClientGone();
    expect(media.playedSamples).toBe(1600);
    expect(media.stops).toHaveLength(1);
  });
});

describe('PhoneChannel with stt_vendor_1 (fake server)', () => {
  let server: FakeSttServer;
  beforeEach(async () => {
    server = await startFakeSttServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('speech barges into a prompt, the utterance is the next turn, and close ends the stream', async () => {
    const clock = new FakeClock();
    const stt = new LiveSttProvider({ apiKey: 'dg', baseUrl: server.baseUrl, clock });
    const tts = new FakeTtsProvider({ holdAfter: 2 });
    const { media, channel, signal } = phone(tts, stt, clock);
    const said = channel.say('Welcome back. You have three new messages.', { bargeIn: true, signal });
    const conn = await server.nextConnection();
    expect(conn.url.searchParams.get('sample_rate')).toBe('16000');
    expect(conn.url.searchParams.get('language')).toBe('en-US');
    for (let i = 0; i < 50; i++) {
      clock.advance(20);
      media.pushAudio();
    }
    await conn.waitForAudio(50 * 640);
    conn.send({ type: 'SpeechStarted', channel: [0], timestamp: 0.3 });
    await expect(said).resolves.toEqual({ bargedIn: true });
    conn.result('stop', { start: 0.3, duration: 0.2 });
    conn.result('stop reading them', { isFinal: true, speechFinal: true, start: 0.3, duration: 0.6 });
    await expect(channel.listen({ signal })).resolves.toEqual({
      text: 'stop reading them',
      endedAt: 900,
      detectedAt: 1000,
      transcribedAt: 1000,
    });
    expect(channel.usage()).toEqual({ ttsCharacters: 42, sttSeconds: 1 });
    await channel.close();
    expect(conn.controls.map((c) => c.type)).toContain('CloseStream');
  });
});
