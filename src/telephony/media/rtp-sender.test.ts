import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { OpusCodec } from '../../audio/codecs/opus.js';
import { PipelineCodec } from '../../audio/codecs/pipeline-codec.js';
import { DtmfReceiver, parseTelephoneEvent } from './dtmf.js';
import { parseRtp, type RtpPacket } from './rtp-packet.js';
import { RtpSender, type RtpSenderOptions } from './rtp-sender.js';
import type { SharedPacer } from './shared-pacer.js';

function setup(options: Partial<RtpSenderOptions> = {}) {
  const clock = new FakeClock();
  const sent: { at: number; p: RtpPacket }[] = [];
  const sender = new RtpSender({
    clock,
    codec: new PipelineCodec(new G711Codec('ulaw')),
    ssrc: 0x1234,
    sequence: 65000,
    timestamp: 0xfffff000,
    transmit: (b) => sent.push({ at: clock.monotonic(), p: parseRtp(b) }),
    ...options,
  });
  return { clock, sender, sent };
}

describe('RtpSender', () => {
  it('sends one 20 ms frame per 20 ms for 10 simulated minutes with no drift', () => {
    const { clock, sender, sent } = setup();
    sender.start();
    clock.advance(10 * 60 * 1000);
    expect(sent).toHaveLength(30001); // frames at 0, 20, ..., 600000
    for (let i = 0; i < sent.length; i++) {
      const { at, p } = sent[i];
      if (
        at !== i * 20 ||
        p.timestamp !== (0xfffff000 + i * 160) >>> 0 ||
        p.sequenceNumber !== (65000 + i) % 65536
      ) {
        throw new Error(`packet ${i} off: at ${at} ts ${p.timestamp} seq ${p.sequenceNumber}`);
      }
    }
    expect(sent[0].p.marker).toBe(true);
    expect(sent.slice(1).some((s) => s.p.marker)).toBe(false);
    expect(sender.stats).toMatchObject({ packets: 30001, octets: 30001 * 160, skippedFrames: 0 });
    expect(sender.timestampAt(600_000)).toBe((0xfffff000 + 30000 * 160) >>> 0);
  });

  it('hands a tap frames of their own, while without one the frames sent are still each its own audio', () => {
    const ramp = Int16Array.from({ length: 3 * 320 }, (_, i) => (i % 320) * 50 + Math.floor(i / 320) * 1000);
    const decoded = (p: RtpPacket) => new G711Codec('ulaw').decode(p.payload())[100];
    const untapped = setup();
    untapped.sender.enqueue(ramp);
    untapped.sender.start();
    untapped.clock.advance(40);
    const tapped = setup();
    const frames: Int16Array[] = [];
    tapped.sender.onSent = (pcm) => frames.push(pcm);
    tapped.sender.enqueue(ramp);
    tapped.sender.start();
    tapped.clock.advance(40);
    // The same audio goes out either way, frame by frame.
    expect(untapped.sent.map((s) => decoded(s.p))).toEqual(tapped.sent.map((s) => decoded(s.p)));
    expect(new Set(untapped.sent.map((s) => decoded(s.p))).size).toBe(3);
    // What the tap kept is each frame's audio, not the last one's.
    expect(frames.map((f) => f[200])).toEqual([200 * 50, 200 * 50 + 1000, 200 * 50 + 2000]);
  });

  it('counts ticks a stall skipped as holes only when there was audio to send', () => {
    // A frame clock driven by hand: tick 0, then a stall that jumps to tick 6 (5 ticks skipped).
    let fire: (index: number) => void = () => undefined;
    const ticker = { running: true, start() {}, stop() {}, dueAt: (i: number) => i * 20 };
    const pacer = {
      subscribe(onTick: (index: number) => void) {
        fire = onTick;
        return ticker;
      },
    } as unknown as SharedPacer;
    const { sender, sent } = setup({ idle: 'pause', pacer });
    sender.start();
    fire(0);
    fire(6); // idle: nothing queued, so nothing was owed
    expect(sender.stats).toMatchObject({ skippedFrames: 5, holeFrames: 0, packets: 0 });
    sender.enqueue(new Int16Array(16000)); // a second of audio
    fire(7);
    fire(17); // 9 ticks of that second's time passed unsent
    expect(sender.stats).toMatchObject({ skippedFrames: 14, holeFrames: 9, packets: 2 });
    expect(sent.map((s) => s.p.timestamp - sent[0]!.p.timestamp)).toEqual([0, 10 * 160]);
  });

  it('sends queued audio in order, then silence', () => {
    const { clock, sender, sent } = setup();
    const pcm = Int16Array.from({ length: 320 * 3 + 100 }, () => 8000);
    sender.enqueue(pcm);
    expect(sender.queuedMs).toBe(66.25);
    sender.start();
    clock.advance(100);
    // The fourth frame starts with the last 100 samples; the fifth and sixth are silence.
    const loud = sent.map((s) => s.p.payload()[20] !== 0xff);
    expect(loud).toEqual([true, true, true, true, false, false]);
    const silent = (b: Buffer) => b.every((c) => c === 0xff || c === 0x7f);
    expect(sent.map((s) => silent(s.p.payload()))).toEqual([false, false, false, false, true, true]);
    sender.enqueue(pcm);
    sender.clear();
    expect(sender.queuedMs).toBe(0);
  });

  it('pauses instead of sending silence when asked, marking the next talkspurt', () => {
    const { clock, sender, sent } = setup({ idle: 'pause' });
    sender.start();
    clock.advance(100);
    expect(sent).toHaveLength(0);
    sender.enqueue(new Int16Array(640).fill(1000));
    clock.advance(100);
    expect(sent.map((s) => [s.at, s.p.marker])).toEqual([
      [120, true],
      [140, false],
    ]);
    // Timestamps still follow the clock across the pause.
    expect(sent[0].p.timestamp).toBe((0xfffff000 + 6 * 160) >>> 0);
  });

  it("with startAtOnce, sends a talk spurt's first frame when queued, the rest a tick ahead", () => {
    const { clock, sender, sent } = setup({ idle: 'pause', startAtOnce: true });
    const ts = (tick: number) => (0xfffff000 + tick * 160) >>> 0;
    sender.enqueue(new Int16Array(320).fill(1000));
    expect(sent).toHaveLength(0); // not started: nothing goes before the line is up
    sender.clear();
    sender.start();
    clock.advance(107); // ticks 0..5 went by idle
    sender.enqueue(new Int16Array(960).fill(1000)); // three frames
    expect(sent.map((s) => [s.at, s.p.marker, s.p.timestamp])).toEqual([[107, true, ts(6)]]);
    clock.advance(100);
    // Tick 6 (at 120) sends tick 7's frame: one tick ahead until the spurt ends.
    expect(sent.map((s) => [s.at, s.p.timestamp])).toEqual([
      [107, ts(6)],
      [120, ts(7)],
      [140, ts(8)],
    ]);
    // The next spurt starts at once again, on the clock's time (tick 11 was at 220).
    clock.advance(13);
    sender.enqueue(new Int16Array(320).fill(1000));
    expect(sent.at(-1)).toMatchObject({ at: 220 });
    expect(sent.at(-1)!.p.timestamp).toBe(ts(12));
    expect(sent.at(-1)!.p.marker).toBe(true);
    // Less than a frame waits for its tick (padding it now would put silence mid-word).
    clock.advance(47); // 267: the spurt ended at tick 12
    sender.enqueue(new Int16Array(100).fill(1000));
    expect(sent.at(-1)!.at).toBe(220);
    clock.advance(13);
    expect(sent.at(-1)).toMatchObject({ at: 280 });
    expect(sent.at(-1)!.p.timestamp).toBe(ts(14));
    expect(sender.stats).toMatchObject({ packets: 5, holeFrames: 0, skippedFrames: 0 });
  });

  it('with startAtOnce, a queued press goes first, and the spurt after it waits for its tick', async () => {
    const { clock, sender, sent } = setup({ idle: 'pause', startAtOnce: true });
    sender.start();
    clock.advance(10);
    void sender.sendDigits('1', { durationMs: 40, gapMs: 20 });
    sender.enqueue(new Int16Array(320).fill(1000));
    expect(sent).toHaveLength(0);
    await clock.advanceAsync(300, 10);
    const kinds = sent.map((s) => (s.p.payloadType === 101 ? 'event' : 'audio'));
    expect(kinds[0]).toBe('event');
    expect(kinds.filter((k) => k === 'audio')).toHaveLength(1);
    const seqs = sent.map((s) => s.p.sequenceNumber);
    expect(seqs).toEqual(seqs.map((_, i) => (65000 + i) % 65536));
  });

  it('sends a press as start, 50 ms continuations and three end packets, muting audio', async () => {
    const { clock, sender, sent } = setup();
    sender.start();
    clock.advance(40);
    let done = false;
    void sender.sendDigits('5', { durationMs: 100, gapMs: 40 }).then(() => (done = true));
    await clock.advanceAsync(400, 10);
    expect(done).toBe(true);
    const events = sent.filter((s) => s.p.payloadType === 101);
    expect(events.map((s) => [s.at, s.p.marker, parseTelephoneEvent(s.p.payload())])).toEqual([
      [60, true, { event: 5, end: false, volume: 10, duration: 400 }],
      [110, false, { event: 5, end: false, volume: 10, duration: 800 }],
      [160, false, { event: 5, end: true, volume: 10, duration: 800 }],
      [180, false, { event: 5, end: true, volume: 10, duration: 800 }],
      [200, false, { event: 5, end: true, volume: 10, duration: 800 }],
    ]);
    expect(new Set(events.map((s) => s.p.timestamp))).toEqual(new Set([(0xfffff000 + 3 * 160) >>> 0]));
    const audio = sent.filter((s) => s.p.payloadType === 0).map((s) => s.at);
    expect(audio.filter((t) => t >= 60 && t < 240)).toEqual([]);
    expect(audio).toContain(240);
    // Sequence numbers run on across audio and events.
    const seqs = sent.map((s) => s.p.sequenceNumber);
    expect(seqs).toEqual(seqs.map((_, i) => (65000 + i) % 65536));
  });

  it('sends a digit string the receiver reads back in order', async () => {
    const { clock, sender, sent } = setup();
    const digits: string[] = [];
    const rx = new DtmfReceiver(8000, (d) => digits.push(d.digit));
    sender.start();
    void sender.sendDigits('1*9#');
    await clock.advanceAsync(2000, 20);
    for (const s of sent) if (s.p.payloadType === 101) rx.handle(s.p.timestamp, s.p.payload());
    expect(digits.join('')).toBe('1*9#');
  });

  it('holds: keeps time but sends and dequeues nothing while paused', () => {
    const { clock, sender, sent } = setup();
    sender.enqueue(new Int16Array(320 * 4).fill(4000));
    sender.start();
    clock.advance(20); // frames at 0 and 20
    sender.paused = true;
    clock.advance(100);
    expect(sent).toHaveLength(2);
    expect(sender.queuedMs).toBe(40);
    sender.paused = false;
    clock.advance(20);
    expect(sent[2].at).toBe(140);
    expect(sent[2].p.marker).toBe(true);
    expect(sent[2].p.timestamp).toBe((0xfffff000 + 7 * 160) >>> 0);
    expect(sent[2].p.sequenceNumber).toBe((sent[1].p.sequenceNumber + 1) & 0xffff);
  });

  it('switches codec mid-stream with timestamps running on at the new rate', () => {
    const { clock, sender, sent } = setup();
    sender.start();
    clock.advance(40); // PCMU frames at 0, 20, 40
    sender.setCodec(new PipelineCodec(new OpusCodec()), 111);
    clock.advance(40); // Opus frames at 60, 80
    expect(sent.map((s) => s.p.payloadType)).toEqual([0, 0, 0, 111, 111]);
    const ts = sent.map((s) => s.p.timestamp);
    expect((ts[3] - ts[2]) >>> 0).toBe(160);
    expect((ts[4] - ts[3]) >>> 0).toBe(960);
    expect(sent[3].p.marker).toBe(true);
  });

  it('reports an encoder failure and keeps pacing', () => {
    const errors: Error[] = [];
    const codec = new PipelineCodec(new G711Codec('ulaw'));
    let n = 0;
    const encode = codec.encode.bind(codec);
    codec.encode = (pcm) => {
      if (++n === 3) throw new Error('encoder broke');
      return encode(pcm);
    };
    const { clock, sender, sent } = setup({ codec, onError: (e) => errors.push(e) });
    sender.start();
    clock.advance(100);
    expect(errors.map((e) => e.message)).toEqual(['encoder broke']);
    expect(sender.stats.encodeErrors).toBe(1);
    expect(sent).toHaveLength(5);
  });

  it('reports a transport that throws and keeps pacing, counting only what went out', () => {
    const errors: Error[] = [];
    const sent: RtpPacket[] = [];
    let n = 0;
    const { clock, sender } = setup({
      onError: (e) => errors.push(e),
      transmit: (b) => {
        if (++n === 2) throw new Error('Track is closed');
        sent.push(parseRtp(b));
      },
    });
    sender.start();
    expect(() => clock.advance(100)).not.toThrow();
    expect(errors.map((e) => e.message)).toEqual(['Track is closed']);
    expect(sent).toHaveLength(5);
    expect(sender.stats.packets).toBe(5);
    // The lost packet took its sequence number: the far end sees a gap, as for any loss.
    expect((sent[1]!.sequenceNumber - sent[0]!.sequenceNumber) & 0xffff).toBe(2);
  });
});
