// Two calls joined by MediaBridge over loopback UDP on one fake clock: caller phone ⇄ our caller
// session ⇄ bridge ⇄ our human session ⇄ human phone. Audio is counted each way, digits cross,
// a G.711 leg joins an Opus leg, and stop() unhooks both directions.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { MediaBridge, MediaTap, rtpBridgeEnd, tapSession, type BridgeEnd } from './bridge.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { OpusCodec } from '../../audio/codecs/opus.js';
import type { AudioCodec } from '../../audio/codecs/audio-codec.js';
import { RtpPortAllocator } from './port-allocator.js';
import { RtpSession } from './rtp-session.js';

const HOST = '127.0.0.1';
const ports = new RtpPortAllocator(43000 + (process.pid % 50) * 40, 43039 + (process.pid % 50) * 40);
const open: RtpSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function settle(done: () => boolean = () => false, turns = 200): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((r) => setImmediate(r));
}

async function run(clock: FakeClock, ms: number, moving: () => number): Promise<void> {
  for (let t = 0; t < ms; t += 10) {
    const before = moving();
    clock.advance(10);
    await settle(() => moving() > before, 20);
  }
  await settle();
}

function tone(n: number, freq = 1000, rate = 16000): Int16Array {
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * freq * i) / rate)),
  );
}

let seed = 7;
const random = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;

/** A session with its callbacks on a tap (loud frames and digits counted). */
function tapped(clock: FakeClock, codec: AudioCodec = new G711Codec('ulaw')) {
  const tap = new MediaTap();
  let loud = 0;
  const digits: string[] = [];
  tap.onAudio((pcm) => {
    if (Math.max(...pcm) > 3000) loud++;
  });
  tap.onDigit((d) => digits.push(d));
  const s = new RtpSession({
    clock,
    ports,
    host: HOST,
    codec,
    random,
    telephoneEventPayloadType: 101,
    ...tap.sessionOptions,
  });
  open.push(s);
  return { s, tap, digits, loud: () => loud };
}

async function pair(clock: FakeClock, codec?: AudioCodec) {
  const phone = tapped(clock, codec);
  const ours = tapped(clock, codec);
  const pp = await phone.s.bind();
  const po = await ours.s.bind();
  phone.s.setRemote({ address: HOST, port: po });
  ours.s.setRemote({ address: HOST, port: pp });
  phone.s.start();
  ours.s.start();
  return { phone, ours };
}

describe('MediaBridge', () => {
  it('passes audio both ways and digits through, then stops', async () => {
    const clock = new FakeClock();
    const caller = await pair(clock);
    const human = await pair(clock);
    const bridge = new MediaBridge(
      rtpBridgeEnd(caller.ours.s, caller.ours.tap),
      rtpBridgeEnd(human.ours.s, human.ours.tap),
    );
    bridge.start();
    const moving = () =>
      caller.phone.s.counters.rtpIn +
      caller.ours.s.counters.rtpIn +
      human.phone.s.counters.rtpIn +
      human.ours.s.counters.rtpIn;
    // Half a second of tone from each phone, one after the other.
    caller.phone.s.enqueue(tone(8000));
    await run(clock, 800, moving);
    const humanHeard = human.phone.loud();
    expect(humanHeard).toBeGreaterThan(15);
    expect(caller.phone.loud()).toBe(0);
    human.phone.s.enqueue(tone(8000, 600));
    await run(clock, 800, moving);
    expect(caller.phone.loud()).toBeGreaterThan(15);
    // Digits each way (RFC 4733 out of one leg, RFC 4733 into the other).
    const d1 = caller.phone.s.sendDigits('1#');
    await run(clock, 600, moving);
    await d1;
    const d2 = human.phone.s.sendDigits('9');
    await run(clock, 400, moving);
    await d2;
    await run(clock, 300, moving);
    expect(human.phone.digits).toEqual(['1', '#']);
    expect(caller.phone.digits).toEqual(['9']);
    expect(bridge.counters).toMatchObject({ digitsAToB: 2, digitsBToA: 1 });
    expect(bridge.counters.aToB).toBeGreaterThan(50);
    expect(bridge.counters.bToA).toBeGreaterThan(50);
    // Stopped: a tone from the caller no longer reaches the human.
    bridge.stop();
    expect(bridge.running).toBe(false);
    const before = human.phone.loud();
    caller.phone.s.enqueue(tone(8000));
    await run(clock, 800, moving);
    expect(human.phone.loud()).toBe(before);
  });

  it('joins an Opus leg to a G.711 leg', async () => {
    const clock = new FakeClock();
    const caller = await pair(clock, new OpusCodec());
    const human = await pair(clock, new G711Codec('alaw'));
    const bridge = new MediaBridge(
      rtpBridgeEnd(caller.ours.s, caller.ours.tap),
      rtpBridgeEnd(human.ours.s, human.ours.tap),
    );
    bridge.start();
    const moving = () => caller.ours.s.counters.rtpIn + human.phone.s.counters.rtpIn;
    caller.phone.s.enqueue(tone(8000));
    await run(clock, 800, moving);
    expect(human.phone.loud()).toBeGreaterThan(10);
    bridge.stop();
  });

  it('taps a session built by someone else, and untaps it', async () => {
    const clock = new FakeClock();
    let own = 0;
    const ownDigits: string[] = [];
    const phone = tapped(clock);
    const theirs = new RtpSession({
      clock,
      ports,
      host: HOST,
      codec: new G711Codec('ulaw'),
      random,
      telephoneEventPayloadType: 101,
      onAudio: () => own++,
      onDigit: (d) => ownDigits.push(d.digit),
    });
    open.push(theirs);
    const pp = await phone.s.bind();
    const pt = await theirs.bind();
    phone.s.setRemote({ address: HOST, port: pt });
    theirs.setRemote({ address: HOST, port: pp });
    phone.s.start();
    theirs.start();
    const tap = tapSession(theirs);
    let frames = 0;
    const digits: string[] = [];
    tap.end.onAudio(() => frames++);
    tap.end.onDigit((d) => digits.push(d));
    const moving = () => theirs.counters.rtpIn + phone.s.counters.rtpIn;
    phone.s.enqueue(tone(4000));
    const sent = phone.s.sendDigits('5');
    await run(clock, 600, moving);
    await sent;
    await run(clock, 100, moving);
    expect(frames).toBeGreaterThan(20);
    expect(own).toBe(frames);
    expect(digits).toEqual(['5']);
    expect(ownDigits).toEqual(['5']);
    // Playing through the tap reaches the phone.
    tap.end.play(tone(4000));
    await run(clock, 400, moving);
    expect(phone.loud()).toBeGreaterThan(5);
    tap.untap();
    const before = frames;
    await run(clock, 200, moving);
    expect(frames).toBe(before);
    expect(own).toBeGreaterThan(before);
  });

  it('drops frames instead of queueing without bound when the far side lags', () => {
    const played: Int16Array[] = [];
    let feed: (pcm: Int16Array) => void = () => undefined;
    const a: BridgeEnd = {
      play: () => undefined,
      queuedMs: 0,
      onAudio: (l) => {
        feed = l;
        return () => (feed = () => undefined);
      },
      onDigit: () => () => undefined,
      sendDigit: () => undefined,
    };
    const b: BridgeEnd = {
      play: (pcm) => played.push(pcm),
      get queuedMs() {
        return played.length * 20;
      },
      onAudio: () => () => undefined,
      onDigit: () => () => undefined,
      sendDigit: () => undefined,
    };
    const bridge = new MediaBridge(a, b, { maxQueuedMs: 100 });
    bridge.start();
    for (let i = 0; i < 20; i++) feed(new Int16Array(320));
    expect(played).toHaveLength(6);
    expect(bridge.counters).toMatchObject({ aToB: 6, droppedAToB: 14 });
    bridge.stop();
    feed(new Int16Array(320));
    expect(played).toHaveLength(6);
  });
});
