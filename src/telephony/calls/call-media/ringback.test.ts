import { describe, expect, it } from 'vitest';
import { goertzelPurity } from '../../../audio/beep.js';
import { FakeClock } from '../../../shared/clock.js';
import { RINGBACK_TONES, RingbackTone, ringbackCadence, ringbackSamples, type ToneSink } from './ringback.js';

const RATE = 16000;

function energy(x: Int16Array): number {
  let e = 0;
  for (const v of x) e += v * v;
  return e;
}

/** A sink that "sends" 20 ms per 20 ms of fake time, keeping what went out. */
function sink(clock: FakeClock) {
  let queue: Int16Array[] = [];
  let queued = 0;
  const sent: number[] = [];
  const s: ToneSink & { sent: number[] } = {
    sent,
    enqueue: (pcm) => {
      queue.push(pcm);
      queued += pcm.length;
    },
    sender: {
      get queuedMs() {
        return (queued * 1000) / RATE;
      },
      clear: () => {
        queue = [];
        queued = 0;
      },
    },
  };
  const tick = () => {
    // One 20 ms frame out: 320 samples of whatever is queued (its level), or silence.
    let take = 320;
    let peak = 0;
    while (take > 0 && queue.length > 0) {
      const head = queue[0]!;
      const n = Math.min(take, head.length);
      for (let i = 0; i < n; i++) peak = Math.max(peak, Math.abs(head[i]!));
      if (n === head.length) queue.shift();
      else queue[0] = head.subarray(n);
      queued -= n;
      take -= n;
    }
    sent.push(peak);
    clock.setTimeout(tick, 20);
  };
  clock.setTimeout(tick, 20);
  return s;
}

describe('ringback tone', () => {
  it('us: 440 + 480 Hz at −19 dBm0 each, nothing else', () => {
    const on = ringbackSamples(RINGBACK_TONES.us, 0, 1600);
    const e = energy(on);
    const p440 = goertzelPurity(on, 440, RATE, e);
    const p480 = goertzelPurity(on, 480, RATE, e);
    expect(p440).toBeGreaterThan(0.4);
    expect(p480).toBeGreaterThan(0.4);
    expect(p440 + p480).toBeGreaterThan(0.9);
    for (const f of [350, 400, 425, 620, 1000]) expect(goertzelPurity(on, f, RATE, e)).toBeLessThan(0.05);
    // Two components of peak ~2550 (−19 dBm0): the sum peaks near 5100, far from clipping.
    const peak = Math.max(...on.map(Math.abs));
    expect(peak).toBeGreaterThan(4800);
    expect(peak).toBeLessThan(5200);
  });

  it('follows each cadence: on and off segments in samples', () => {
    const us = ringbackSamples(RINGBACK_TONES.us, 0, 6 * RATE);
    const loud = (x: Int16Array, fromMs: number, toMs: number) =>
      x.subarray((fromMs * RATE) / 1000, (toMs * RATE) / 1000).some((v) => Math.abs(v) > 1000);
    expect(loud(us, 0, 100)).toBe(true);
    expect(loud(us, 1900, 2000)).toBe(true);
    expect(loud(us, 2000, 6000)).toBe(false);
    // The cycle repeats: the 7th second is on again (continuing from sample 6 s).
    expect(loud(ringbackSamples(RINGBACK_TONES.us, 6 * RATE, 1600), 0, 100)).toBe(true);
    const uk = ringbackSamples(RINGBACK_TONES.uk, 0, 3 * RATE);
    expect([loud(uk, 0, 400), loud(uk, 400, 600), loud(uk, 600, 1000), loud(uk, 1000, 3000)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    const eu = ringbackSamples(RINGBACK_TONES.eu, 0, 1600);
    expect(goertzelPurity(eu, 425, RATE, energy(eu))).toBeGreaterThan(0.9);
    expect(ringbackCadence('off')).toBeNull();
    expect(ringbackCadence('uk')).toBe(RINGBACK_TONES.uk);
  });

  it('keeps the sender fed through the cadence and drops the queued rest on stop', () => {
    const clock = new FakeClock();
    const s = sink(clock);
    const tone = new RingbackTone(clock, s, RINGBACK_TONES.us);
    tone.start();
    tone.start(); // once only
    clock.advance(7000);
    // 20 ms frames: 100 on, 200 off, then on again; no gap while on.
    const on = (from: number, to: number) => s.sent.slice(from, to).every((p) => p > 4000);
    const off = (from: number, to: number) => s.sent.slice(from, to).every((p) => p === 0);
    expect(on(0, 100)).toBe(true);
    expect(off(100, 300)).toBe(true);
    expect(on(300, 349)).toBe(true);
    expect(s.sender.queuedMs).toBeGreaterThanOrEqual(100);
    tone.stop();
    expect(tone.running).toBe(false);
    expect(s.sender.queuedMs).toBe(0);
    const before = s.sent.length;
    clock.advance(1000);
    expect(s.sent.slice(before).every((p) => p === 0)).toBe(true);
  });

  it('plays nothing without a cadence (SIP_RINGBACK=off)', () => {
    const clock = new FakeClock();
    const s = sink(clock);
    const tone = new RingbackTone(clock, s, null);
    tone.start();
    clock.advance(500);
    expect(tone.running).toBe(false);
    expect(s.sent.every((p) => p === 0)).toBe(true);
  });
});
