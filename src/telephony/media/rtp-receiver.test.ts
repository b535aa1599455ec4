import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from './codecs/g711.js';
import { PipelineCodec } from './codecs/pipeline-codec.js';
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

  it('counts foreign payload types and restarts on a new SSRC', () => {
    const { clock, rx, send } = setup();
    rx.start();
    send(1, 0);
    send(2, 160);
    send(3, 320, 96);
    expect(rx.counters.unknownPayload).toBe(1);
    send(900, 5000, 8, 77);
    send(901, 5160, 8, 77);
    clock.advance(100);
    expect(rx.counters.sourceChanges).toBe(1);
    expect(rx.ssrc).toBe(77);
    expect(rx.reception?.received).toBe(1);
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
