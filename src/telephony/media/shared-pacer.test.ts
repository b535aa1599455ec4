import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { PipelineCodec } from '../../audio/codecs/pipeline-codec.js';
import { parseRtp } from './rtp-packet.js';
import { RtpSender } from './rtp-sender.js';
import { LATE_TICK_MS, SharedPacer } from './shared-pacer.js';

describe('SharedPacer', () => {
  it('ticks each subscriber from its own start, on one timer', () => {
    const clock = new FakeClock();
    const shared = new SharedPacer(clock);
    const seen: Record<string, [number, number][]> = { a: [], b: [] };
    const a = shared.subscribe((i) => seen.a.push([i, clock.monotonic()]));
    const b = shared.subscribe((i) => seen.b.push([i, clock.monotonic()]));
    a.start();
    clock.advance(30);
    b.start();
    clock.advance(40);
    expect(seen.a).toEqual([
      [0, 0],
      [1, 20],
      [2, 40],
      [3, 60],
    ]);
    expect(seen.b).toEqual([
      [0, 40],
      [1, 60],
    ]);
    expect(b.dueAt(0)).toBe(40);
    expect(clock.pending()).toBe(1);
    a.stop();
    b.stop();
    expect(clock.pending()).toBe(0);
    expect(shared.size).toBe(0);
  });

  it('drives many senders for 10 simulated minutes with no drift and one timer', () => {
    const clock = new FakeClock();
    const shared = new SharedPacer(clock);
    // Each stream keeps its count and its last packet only: parsing 600,000 packets made this
    // test slow enough to time out on a loaded machine, and the last one carries any drift.
    const streams = Array.from({ length: 20 }, () => ({ count: 0, last: Buffer.alloc(0) }));
    const senders = streams.map((stream, k) => {
      return new RtpSender({
        clock,
        codec: new PipelineCodec(new G711Codec('ulaw')),
        ssrc: k,
        sequence: k * 1000,
        timestamp: k * 12345,
        pacer: shared,
        transmit: (b) => {
          stream.count++;
          stream.last = b;
        },
      });
    });
    senders.forEach((s, k) => clock.setTimeout(() => s.start(), k * 7));
    clock.advance(10 * 60 * 1000);
    expect(clock.pending()).toBe(1);
    streams.forEach((stream, k) => {
      const startTick = Math.ceil((k * 7) / 20);
      expect(stream.count).toBe(30001 - startTick);
      const last = parseRtp(stream.last);
      expect(last.timestamp).toBe((k * 12345 + (stream.count - 1) * 160) >>> 0);
      expect(last.sequenceNumber).toBe((k * 1000 + stream.count - 1) & 0xffff);
    });
    senders.forEach((s) => s.stop());
    expect(clock.pending()).toBe(0);
  });

  it('counts ticks due, sent over LATE_TICK_MS late (its own work included) and never sent', () => {
    // A clock whose monotonic time a subscriber moves on by the work it does in its tick.
    class WorkingClock extends FakeClock {
      lag = 0;
      override monotonic(): number {
        return super.monotonic() + this.lag;
      }
    }
    const clock = new WorkingClock();
    const shared = new SharedPacer(clock);
    let work = 0;
    const sub = shared.subscribe(() => {
      clock.lag += work;
      work = 0;
    });
    sub.start();
    clock.advance(100);
    expect(shared.ticks).toEqual({ due: 6, late: 0, skipped: 0 });
    work = 30; // a tick that ends 30 ms after it was due: not over LATE_TICK_MS
    clock.advance(100);
    expect(shared.ticks.late).toBe(0);
    work = LATE_TICK_MS + 5; // one that ends 45 ms late; the one caught up after it, 5 ms
    clock.advance(100);
    expect(shared.ticks).toMatchObject({ late: 1, skipped: 0 });
    // A 200 ms stall in a tick: that tick is late; of the nine due meanwhile the Pacer sends the
    // last three (40, 20 and 0 ms late: not over LATE_TICK_MS) and skips the rest.
    work = 200;
    clock.advance(100);
    const t = shared.ticks;
    expect(t.late).toBe(2);
    expect(t.skipped).toBe(7);
    expect(t.due).toBe(Math.floor(clock.monotonic() / 20) + 1);
    sub.stop();
  });
});
