import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { PipelineCodec } from '../../audio/codecs/pipeline-codec.js';
import { encodeTelephoneEvent, type DigitEvent } from './dtmf.js';
import { parseRtp, serializeRtp } from './rtp-packet.js';
import { MediaReceiver, type AudioFrameInfo } from './rtp-receiver.js';

function setup() {
  const clock = new FakeClock();
  const frames: { pcm: Int16Array; info: AudioFrameInfo }[] = [];
  const digits: DigitEvent[] = [];
  const rx = new MediaReceiver({
    clock,
    codec: new PipelineCodec(new G711Codec('alaw')),
    onAudio: (pcm, info) => frames.push({ pcm, info }),
    onDigit: (d) => digits.push(d),
  });
  const send = (seq: number, ts: number, pt = 8, ssrc = 5, payload: Buffer = Buffer.alloc(160, 0xaa)) =>
    rx.handle(
      parseRtp(serializeRtp({ payloadType: pt, sequenceNumber: seq, timestamp: ts, ssrc }, payload)),
      clock.monotonic(),
    );
  return { clock, rx, frames, digits, send };
}

describe('MediaReceiver', () => {
  it('plays decoded 16 kHz frames on its own clock, one per 20 ms', () => {
    const { clock, rx, frames, send } = setup();
    rx.start();
    for (let i = 0; i < 50; i++) {
      send(100 + i, i * 160);
      clock.advance(20);
    }
    // The first packet is held back by RFC 3550 probation; the rest play.
    expect(frames.filter((f) => !f.info.concealed)).toHaveLength(48);
    expect(frames.every((f) => f.pcm.length === 320)).toBe(true);
    expect(Math.max(...frames[10].pcm)).toBeGreaterThan(30000); // 0xaa is A-law full scale
    expect(rx.reception?.received).toBe(49);
  });

  it('with fillPauses, hears a DTX-like pause as silence frames in real time, not as loss', () => {
    const clock = new FakeClock();
    const frames: AudioFrameInfo[] = [];
    const rx = new MediaReceiver({
      clock,
      codec: new PipelineCodec(new G711Codec('alaw')),
      fillPauses: true,
      onAudio: (_pcm, info) => frames.push(info),
    });
    rx.start();
    const send = (seq: number, ts: number) =>
      rx.handle(
        parseRtp(
          serializeRtp(
            { payloadType: 8, sequenceNumber: seq, timestamp: ts, ssrc: 5 },
            Buffer.alloc(160, 0xaa),
          ),
        ),
        clock.monotonic(),
      );
    // Nothing before the source's first packet.
    clock.advance(100);
    expect(frames).toHaveLength(0);
    // Half a second of speech, then DTX: a packet every 400 ms, consecutive sequence numbers.
    let seq = 10;
    let ts = 0;
    for (let i = 0; i < 25; i++) {
      send(seq++, ts);
      ts += 160;
      clock.advance(20);
    }
    for (let i = 0; i < 5; i++) {
      ts += 160 * 19;
      clock.advance(380);
      send(seq++, ts);
      ts += 160;
      clock.advance(20);
    }
    // Every 20 ms of the two and a half seconds after the first packet is a frame: none concealed.
    expect(frames.length).toBeGreaterThanOrEqual(120);
    expect(frames.filter((f) => f.concealed)).toHaveLength(0);
    expect(frames.filter((f) => f.pause).length).toBeGreaterThan(80);
  });

  it('with handOnArrival, hands each frame on as it arrives; the clock fills in only what did not come', () => {
    const clock = new FakeClock();
    const frames: { at: number; seq: number; concealed: boolean; pause: boolean }[] = [];
    const rx = new MediaReceiver({
      clock,
      codec: new PipelineCodec(new G711Codec('alaw')),
      fillPauses: true,
      handOnArrival: true,
      onAudio: (_pcm, info) =>
        frames.push({
          at: clock.monotonic(),
          seq: info.sequence,
          concealed: info.concealed,
          pause: !!info.pause,
        }),
    });
    rx.start(); // ticks at 0, 20, 40, ...
    const send = (seq: number) =>
      rx.handle(
        parseRtp(
          serializeRtp(
            { payloadType: 8, sequenceNumber: seq, timestamp: seq * 160, ssrc: 5 },
            Buffer.alloc(160, 0xaa),
          ),
        ),
        clock.monotonic(),
      );
    clock.advance(5);
    send(10); // held back by probation
    clock.advance(20);
    frames.length = 0; // the tick at 20 heard the source's first pause
    // Packets 5 ms after each tick: each is handed on at its arrival, and no tick adds a frame.
    for (let seq = 11; seq <= 20; seq++) {
      send(seq);
      expect(frames.at(-1)).toEqual({ at: clock.monotonic(), seq, concealed: false, pause: false });
      clock.advance(20);
    }
    expect(frames).toHaveLength(10);
    // 21 is lost: 22 waits for the tick, which conceals 21 and hands 22 on behind it.
    frames.length = 0;
    send(22); // at 225
    expect(frames).toHaveLength(0);
    clock.advance(15); // the tick at 240
    expect(frames).toEqual([
      { at: 240, seq: 21, concealed: true, pause: false },
      { at: 240, seq: 22, concealed: false, pause: false },
    ]);
    // The sender pauses (DTX): after the tick 22 went ahead of, silence once per tick, in real time.
    frames.length = 0;
    clock.advance(100); // ticks at 260 (owed nothing), 280, 300, 320, 340
    expect(frames.map((f) => [f.at, f.pause])).toEqual([
      [280, true],
      [300, true],
      [320, true],
      [340, true],
    ]);
  });

  it('without fillPauses, hands nothing while the sender pauses', () => {
    const { clock, rx, frames, send } = setup();
    rx.start();
    for (let i = 0; i < 5; i++) {
      send(10 + i, i * 160);
      clock.advance(20);
    }
    const before = frames.length;
    clock.advance(1000);
    expect(frames.length - before).toBeLessThanOrEqual(2);
  });

  it('counts foreign payload types and restarts on a new SSRC once the old one has gone quiet', () => {
    const { clock, rx, send } = setup();
    rx.start();
    send(1, 0);
    send(2, 160);
    send(3, 320, 96);
    expect(rx.counters.unknownPayload).toBe(1);
    // The first source stops; 100 ms later (the hold) another one starts, as after a re-INVITE.
    clock.advance(100);
    send(900, 5000, 8, 77);
    send(901, 5160, 8, 77);
    clock.advance(100);
    expect(rx.counters.sourceChanges).toBe(1);
    expect(rx.counters.strayPackets).toBe(0);
    expect(rx.ssrc).toBe(77);
    expect(rx.reception?.received).toBe(1);
  });

  it('keeps playing the current source when another is interleaved with it, counting the other as stray', () => {
    const { clock, rx, frames, send } = setup();
    rx.start();
    // Source 5 and source 77 both send a frame every 20 ms, interleaved, for two seconds.
    for (let i = 0; i < 100; i++) {
      send(100 + i, i * 160, 8, 5);
      send(3000 + i, 90_000 + i * 160, 8, 77, Buffer.alloc(160, 0xd5));
      clock.advance(20);
    }
    expect(rx.ssrc).toBe(5);
    expect(rx.counters.sourceChanges).toBe(0);
    expect(rx.counters.strayPackets).toBe(100);
    // Source 5 plays as if alone: everything past probation, nothing concealed after the start.
    const played = frames.filter((f) => !f.info.concealed);
    expect(played.length).toBeGreaterThanOrEqual(95);
    expect(played.every((f) => Math.max(...f.pcm) > 30000)).toBe(true);

    // Source 5 stops: within the hold the other is still a stray, then it takes over and plays.
    const before = rx.counters.strayPackets;
    for (let i = 100; i < 200; i++) {
      send(3000 + i, 90_000 + i * 160, 8, 77, Buffer.alloc(160, 0xd5));
      clock.advance(20);
    }
    expect(rx.ssrc).toBe(77);
    expect(rx.counters.sourceChanges).toBe(1);
    // Its packets at 0, 20, 40, 60 and 80 ms after source 5's last one were strays (hold 100 ms).
    expect(rx.counters.strayPackets - before).toBe(4);
    const late = frames.slice(-50).filter((f) => !f.info.concealed);
    expect(late.length).toBeGreaterThanOrEqual(45);
    // 0xd5 is A-law's smallest step: quiet, not source 5's full scale.
    expect(late.every((f) => Math.max(...f.pcm.map(Math.abs)) < 100)).toBe(true);
  });

  it('lets the real source take over from a lone packet once the hold has passed', () => {
    const { clock, rx, send } = setup();
    send(40_000, 0, 8, 999); // one leftover packet before the call's media starts
    for (let i = 0; i < 10; i++) {
      send(1 + i, i * 160, 8, 5);
      clock.advance(20);
    }
    // Packets at 0..80 ms were strays; the one at 100 ms took over, the next one passed probation.
    expect(rx.ssrc).toBe(5);
    expect(rx.counters.sourceChanges).toBe(1);
    expect(rx.counters.strayPackets).toBe(5);
    expect(rx.reception?.received).toBe(4);
  });

  it('turns telephone-events into digits, even the first packet of a source', () => {
    const { rx, digits, send } = setup();
    const ev = (event: number, end: boolean) =>
      encodeTelephoneEvent({ event, end, volume: 10, duration: 800 });
    send(10, 1000, 101, 5, ev(1, false));
    send(11, 1000, 101, 5, ev(1, true));
    send(12, 1000, 101, 5, ev(1, true));
    send(13, 2000, 101, 5, ev(14, true));
    expect(digits.map((d) => d.digit)).toEqual(['1', 'C']);
    expect(rx.counters.eventPackets).toBe(3);
  });

  it('conceals a lost packet', () => {
    const { clock, rx, frames, send } = setup();
    rx.start();
    for (let i = 0; i < 20; i++) {
      if (i !== 8) send(200 + i, i * 160);
      clock.advance(20);
    }
    expect(frames.filter((f) => f.info.concealed).map((f) => f.info.sequence)).toEqual([208]);
    expect(rx.jitterBuffer.stats.concealed).toBe(1);
  });

  it('reports a consumer that throws and keeps playing', () => {
    const clock = new FakeClock();
    const errors: Error[] = [];
    let calls = 0;
    const rx = new MediaReceiver({
      clock,
      codec: new PipelineCodec(new G711Codec('ulaw')),
      onAudio: () => {
        calls++;
        throw new Error('consumer broke');
      },
      onError: (e) => errors.push(e),
    });
    rx.start();
    for (let i = 0; i < 10; i++) {
      rx.handle(
        parseRtp(
          serializeRtp({ payloadType: 0, sequenceNumber: i, timestamp: i * 160, ssrc: 1 }, Buffer.alloc(160)),
        ),
        clock.monotonic(),
      );
      clock.advance(20);
    }
    expect(calls).toBeGreaterThan(5);
    expect(errors).toHaveLength(calls);
  });
});
