import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSttServer, type FakeSttServer } from '../../../test/support/fake-voice-servers/stt.js';
import { FakeClock } from '../../shared/clock.js';
import { SttError, type SttEvent, type SttSession } from './stt.types.js';
import { LiveSttProvider, toWebSocketBase, type LiveSttOptions } from './vendor-1-deepgram.js';

let server: FakeSttServer;
let clock: FakeClock;
const sessions: SttSession[] = [];

function make(options: LiveSttOptions = {}): LiveSttProvider {
  return new LiveSttProvider({ apiKey: 'dg-test', baseUrl: server.baseUrl, clock, ...options });
}

async function open(provider = make(), options = {}): Promise<SttSession> {
  const s = await provider.start({ language: 'en-US', ...options });
  sessions.push(s);
  return s;
}

function iterate<T>(stream: AsyncIterable<T>): AsyncIterator<T> {
  return stream[Symbol.asyncIterator]();
}

beforeEach(async () => {
  server = await startFakeSttServer();
  clock = new FakeClock();
});
afterEach(async () => {
  await server.close();
  sessions.length = 0;
});

describe('stt_vendor_1 (Deepgram-style live WebSocket)', () => {
  it('connects to /v1/listen with the audio format, features and the token', async () => {
    const session = await open(make({ model: 'nova-3' }), { keywords: ['Switchboard'], endpointingMs: 250 });
    const conn = await server.nextConnection();
    expect(conn.url.pathname).toBe('/v1/listen');
    expect(Object.fromEntries(conn.url.searchParams)).toEqual({
      model: 'nova-3',
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      interim_results: 'true',
      endpointing: '250',
      utterance_end_ms: '1000',
      vad_events: 'true',
      smart_format: 'true',
      language: 'en-US',
      keyterm: 'Switchboard',
    });
    expect(conn.headers.authorization).toBe('Token dg-test');
    await session.close();
  });

  it('sends audio up as little-endian 16-bit binary frames and counts it', async () => {
    const session = await open();
    const conn = await server.nextConnection();
    const frame = Int16Array.from({ length: 320 }, (_, i) => i * 100 - 16000);
    session.sendAudio(frame);
    session.sendAudio(frame);
    await conn.waitForAudio(1280);
    const got = conn.audio();
    expect(got.length).toBe(1280);
    expect(got.readInt16LE(2)).toBe(frame[1]);
    expect(got.readInt16LE(640 + 638)).toBe(frame[319]);
    expect(session.audioMs).toBe(40);
    await session.close();
  });

  it('yields interim and final transcripts and the voice events, then ends after CloseStream', async () => {
    const session = await open();
    const conn = await server.nextConnection();
    const events = iterate(session.events);
    conn.send({ type: 'SpeechStarted', channel: [0], timestamp: 0.42 });
    conn.result('', {}); // an empty interim: dropped
    conn.result('book a', { start: 0.5, duration: 0.6 });
    conn.result('book a table', {
      isFinal: true,
      speechFinal: true,
      start: 0.5,
      duration: 1.1,
      confidence: 0.97,
    });
    conn.send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 1.6 });
    conn.onCloseStream.push({
      type: 'Results',
      is_final: true,
      speech_final: false,
      start: 2,
      duration: 0.5,
      channel: { alternatives: [{ transcript: 'for two', confidence: 0.8 }] },
    });
    const seen: SttEvent[] = [];
    for (let i = 0; i < 4; i++) seen.push((await events.next()).value as SttEvent);
    const closing = session.close();
    for (let r = await events.next(); !r.done; r = await events.next()) seen.push(r.value);
    await closing;
    expect(seen).toEqual([
      { type: 'speech_started', atMs: 420 },
      {
        type: 'transcript',
        text: 'book a',
        isFinal: false,
        speechFinal: false,
        confidence: 0.9,
        startMs: 500,
        durationMs: 600,
      },
      {
        type: 'transcript',
        text: 'book a table',
        isFinal: true,
        speechFinal: true,
        confidence: 0.97,
        startMs: 500,
        durationMs: 1100,
      },
      { type: 'utterance_end', lastWordEndMs: 1600 },
      {
        type: 'transcript',
        text: 'for two',
        isFinal: true,
        speechFinal: false,
        confidence: 0.8,
        startMs: 2000,
        durationMs: 500,
      },
    ]);
    expect(conn.controls.map((c) => c.type)).toEqual(['CloseStream']);
  });

  it('sends Finalize on request and KeepAlive during silence, on the injected clock', async () => {
    const session = await open(make({ keepAliveMs: 4000 }));
    const conn = await server.nextConnection();
    session.finalize();
    await conn.waitForControl('Finalize');
    clock.advance(1999);
    session.sendAudio(new Int16Array(160));
    clock.advance(1); // a check at 2 s: audio went out 1 ms ago, no KeepAlive
    clock.advance(2000); // at 4 s: 2 s of silence
    await conn.waitForControl('KeepAlive');
    expect(conn.controls.map((c) => c.type)).toEqual(['Finalize', 'KeepAlive']);
    await session.close();
  });

  it('fails the events with SttError when the vendor closes abnormally', async () => {
    const session = await open();
    const conn = await server.nextConnection();
    conn.close(1011, 'NET-0001');
    const err = await iterate(session.events)
      .next()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SttError);
    expect(err).toMatchObject({ kind: 'stream', retryable: true });
    expect((err as Error).message).toContain('1011 NET-0001');
  });

  it('rejects start with the vendor status and message when the handshake is refused', async () => {
    server.refuseNext(401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: 'x' });
    const err = await make()
      .start()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SttError);
    expect(err).toMatchObject({ status: 401, kind: 'http', retryable: false });
    expect((err as Error).message).toContain('Invalid credentials.');
  });

  it('times out the handshake on the injected clock', async () => {
    const arrived = server.hangNext();
    const starting = make({ connectTimeoutMs: 3000 }).start();
    await arrived;
    clock.advance(2999);
    let settled = false;
    starting.catch(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    clock.advance(1);
    await expect(starting).rejects.toMatchObject({ name: 'SttError', kind: 'timeout' });
  });

  it('ends the session at once on abort with the signal reason', async () => {
    const ctl = new AbortController();
    const session = await open(make(), { signal: ctl.signal });
    await server.nextConnection();
    const next = iterate(session.events).next();
    ctl.abort(new Error('hangup'));
    await expect(next).rejects.toThrow('hangup');
  });

  it('needs a key for the public endpoint and maps http base URLs to ws', async () => {
    await expect(new LiveSttProvider().start()).rejects.toThrow(/STT_VENDOR_1_API_KEY/);
    expect(new LiveSttProvider().baseUrl).toBe('wss://api.deepgram.com');
    expect(toWebSocketBase('https://stt.example/v1/')).toBe('wss://stt.example');
    expect(toWebSocketBase('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080');
  });
});
