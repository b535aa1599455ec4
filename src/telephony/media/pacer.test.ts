import { describe, expect, it } from 'vitest';
import { FakeClock, type Clock, type TimerHandle } from '../../shared/clock.js';
import { Pacer } from './pacer.js';

/** A FakeClock whose timers fire late by a repeating pattern, as a busy event loop does. */
class LateClock implements Clock {
  private n = 0;
  constructor(
    readonly inner: FakeClock,
    private readonly lateness: number[],
  ) {}
  now() {
    return this.inner.now();
  }
  monotonic() {
    return this.inner.monotonic();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.inner.setTimeout(fn, ms + this.lateness[this.n++ % this.lateness.length]);
  }
  clearTimeout(h: TimerHandle) {
    this.inner.clearTimeout(h);
  }
}

describe('Pacer', () => {
  it('emits exactly one tick per period over 10 simulated minutes despite late timers', () => {
    const fake = new FakeClock();
    const clock = new LateClock(fake, [1, 3, 0, 7, 2, 19, 4]);
    const at: number[] = [];
    const pacer = new Pacer(clock, { periodMs: 20 }, (i) => at.push(i));
    pacer.start();
    fake.advance(10 * 60 * 1000);
    // Ticks 0..30000 were due by the end; the last may wait on a late timer.
    expect(at.length).toBeGreaterThanOrEqual(30000);
    expect(at.length).toBeLessThanOrEqual(30001);
    expect(at).toEqual([...at.keys()]);
    expect(pacer.skipped).toBe(0);
  });

  it('never emits a tick before it is due', () => {
    const fake = new FakeClock();
    const clock = new LateClock(fake, [0, 5, 13]);
    const early: number[] = [];
    const pacer = new Pacer(clock, { periodMs: 20 }, (i) => {
      if (fake.monotonic() + 0.5 < pacer.dueAt(i)) early.push(i);
    });
    pacer.start();
    fake.advance(60_000);
    expect(early).toEqual([]);
  });

  it('accumulating setTimeout(20) would drift where the pacer does not', () => {
    const fake = new FakeClock();
    const clock = new LateClock(fake, [2]);
    let naive = 0;
    const loop = () => {
      naive++;
      clock.setTimeout(loop, 20);
    };
    clock.setTimeout(loop, 20);
    let paced = 0;
    new Pacer(clock, { periodMs: 20 }, () => paced++).start();
    fake.advance(60_000);
    expect(naive).toBeLessThan(2800); // 10% slow
    expect(paced).toBe(3000); // ticks 0..2999; tick 3000 waits on its 2 ms late timer
  });

  it('catches up after a stall with a bounded burst and skips the rest', () => {
    const fake = new FakeClock();
    let stall = true;
    const clock: Clock = {
      now: () => fake.now(),
      monotonic: () => fake.monotonic(),
      setTimeout: (fn, ms) => fake.setTimeout(fn, stall ? 200 : ms),
      clearTimeout: (h) => fake.clearTimeout(h),
    };
    const bursts: number[][] = [];
    const pacer = new Pacer(clock, { periodMs: 20, maxBurst: 3 }, (i) => {
      const t = fake.monotonic();
      const last = bursts[bursts.length - 1];
      if (last && last[0] === t) last.push(i);
      else bursts.push([t, i]);
    });
    pacer.start(); // tick 0 at 0; next timer fires at 200 instead of 20
    stall = false;
    fake.advance(300);
    expect(bursts[1]).toEqual([200, 8, 9, 10]);
    expect(pacer.skipped).toBe(7);
    expect(bursts[2]).toEqual([220, 11]);
  });

  it('stops from inside a tick', () => {
    const fake = new FakeClock();
    let n = 0;
    const pacer = new Pacer(fake, { periodMs: 20 }, () => {
      if (++n === 5) pacer.stop();
    });
    pacer.start();
    fake.advance(1000);
    expect(n).toBe(5);
    expect(fake.pending()).toBe(0);
  });
});
