import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import {
  ADD_CONCURRENT,
  INITIAL_RATE,
  MIN_CONCURRENT,
  MIN_RATE,
  OverloadGate,
  WINDOW_MS,
  type LoadSignals,
  type MediaTicks,
} from './overload.js';

/** Offers `n` calls spread evenly over `ms`; returns how many were admitted. */
function offer(clock: FakeClock, gate: OverloadGate, n: number, ms: number): number {
  let admitted = 0;
  for (let i = 0; i < n; i++) {
    if (gate.admit() === undefined) admitted++;
    clock.advance(ms / n);
  }
  return admitted;
}

/** Signals a test sets; the media pacer's ticks run on by themselves (50 a second, none late). */
class Signals implements LoadSignals {
  delay = 0;
  due = 0;
  late = 0;
  skipped = 0;
  constructor(private readonly clock?: FakeClock) {}
  loopDelayP99Ms(): number {
    return this.delay;
  }
  mediaTicks(): MediaTicks {
    const due = this.clock ? Math.floor(this.clock.monotonic() / 20) : this.due;
    return { due, late: this.late, skipped: this.skipped };
  }
}

describe('OverloadGate with fixed limits', () => {
  it('refuses calls past MAX_CONCURRENT_CALLS with Retry-After 5, and admits again when one ends', () => {
    const clock = new FakeClock();
    let live = 0;
    const gate = new OverloadGate(clock, { maxConcurrentCalls: 3, maxCallsPerSecond: 1000 }, () => live);
    for (let i = 0; i < 3; i++) {
      expect(gate.admit()).toBeUndefined();
      live++;
    }
    expect(gate.admit()).toEqual({ reason: 'max_concurrent_calls', retryAfter: 5 });
    live--;
    expect(gate.admit()).toBeUndefined();
  });

  it('lets exactly MAX_CALLS_PER_SECOND through a steady offer three times as fast', () => {
    const clock = new FakeClock();
    const gate = new OverloadGate(clock, { maxCallsPerSecond: 100 }, () => 0);
    // Ten seconds at 300 calls/s: 100 a second pass, plus the bucket's 20 at the start.
    const admitted = offer(clock, gate, 3000, 10_000);
    expect(admitted).toBeGreaterThanOrEqual(1000);
    expect(admitted).toBeLessThanOrEqual(1020);
  });

  it('refuses a rate refusal with Retry-After 1 and lets a burst of a fifth of a second through', () => {
    const clock = new FakeClock();
    const gate = new OverloadGate(clock, { maxCallsPerSecond: 50 }, () => 0);
    const burst = Array.from({ length: 30 }, () => gate.admit());
    expect(burst.filter((r) => r === undefined)).toHaveLength(10);
    expect(burst[29]).toEqual({ reason: 'max_calls_per_second', retryAfter: 1 });
    clock.advance(20); // one token back at 50/s
    expect(gate.admit()).toBeUndefined();
    expect(gate.admit()).toBeDefined();
  });

  it('never moves a fixed limit, however loaded the node is, and runs no timer', () => {
    const clock = new FakeClock();
    const signals = new Signals();
    signals.delay = 500;
    signals.due = 50;
    signals.late = 30;
    signals.skipped = 10;
    const gate = new OverloadGate(
      clock,
      { maxCallsPerSecond: 100, maxConcurrentCalls: 40 },
      () => 39,
      signals,
    );
    gate.start();
    expect(clock.pending()).toBe(0);
    signals.due = 100;
    signals.late = 60;
    signals.skipped = 20;
    gate.setUpTook(900);
    gate.endWindow();
    expect(gate.state).toMatchObject({ rateLimit: 100, concurrentLimit: 40, overloaded: true });
  });

  it('lets configured limits override derived ones, each on its own', () => {
    const clock = new FakeClock();
    const signals = new Signals(clock);
    const gate = new OverloadGate(clock, { maxConcurrentCalls: 25 }, () => 25, signals);
    gate.start();
    signals.skipped = 1;
    clock.advance(WINDOW_MS);
    // The rate is derived (and backs off for the skipped frames); the cap stays as configured.
    expect(gate.state).toMatchObject({
      overloaded: true,
      concurrentLimit: 25,
      rateLimit: MIN_RATE,
      derived: { concurrent: false, rate: true },
    });
    gate.stop();
  });
});

describe('OverloadGate with derived limits', () => {
  it('starts the rate at INITIAL_RATE and the concurrent cap at the ceiling', () => {
    const gate = new OverloadGate(new FakeClock(), { concurrentCeiling: 5000 }, () => 0, new Signals());
    expect(gate.state).toMatchObject({
      rateLimit: INITIAL_RATE,
      concurrentLimit: 5000,
      derived: { rate: true, concurrent: true },
    });
  });

  it('grows the rate by a quarter a window while the loop is healthy and the limit holds calls back', () => {
    const clock = new FakeClock();
    const signals = new Signals();
    const windows: number[] = [];
    const gate = new OverloadGate(
      clock,
      {},
      () => 0,
      signals,
      (s) => windows.push(s.rateLimit),
    );
    gate.start();
    offer(clock, gate, 1000, WINDOW_MS); // 1,000 offered, 50 pass: the limit binds
    expect(windows).toEqual([63]);
    offer(clock, gate, 1000, WINDOW_MS);
    expect(windows).toEqual([63, 79]);
    gate.stop();
  });

  it('leaves the rate alone when the limit is not what holds calls back', () => {
    const clock = new FakeClock();
    const gate = new OverloadGate(clock, {}, () => 0, new Signals());
    gate.start();
    offer(clock, gate, 10, WINDOW_MS);
    expect(gate.state.rateLimit).toBe(INITIAL_RATE);
    gate.stop();
  });

  it('backs the rate off to 3/4 of what it admitted when frames go out late, not for a loop p99 of 45 ms', () => {
    const clock = new FakeClock();
    const signals = new Signals(clock);
    const gate = new OverloadGate(clock, {}, () => 0, signals);
    gate.start();
    for (let i = 0; i < 6; i++) offer(clock, gate, 400, WINDOW_MS);
    const grown = gate.state.rateLimit;
    expect(grown).toBeGreaterThan(150);
    // The loop's p99 well above a frame, every tick on time: still healthy, still growing.
    signals.delay = 45;
    offer(clock, gate, 400, WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: false, loopDelayP99Ms: 45 });
    expect(gate.state.rateLimit).toBeGreaterThan(grown);
    // One late tick in a second's 50 is within LATE_SHARE: healthy.
    const before = gate.state.rateLimit;
    signals.late += 1;
    offer(clock, gate, 400, WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: false, ticks: { due: 50, late: 1, skipped: 0 } });
    expect(gate.state.rateLimit).toBeGreaterThanOrEqual(before);
    // Two late ticks: overloaded.
    const high = gate.state.rateLimit;
    signals.late += 2;
    const admitted = offer(clock, gate, 400, WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: true, ticks: { due: 50, late: 2, skipped: 0 } });
    expect(gate.state.rateLimit).toBe(Math.floor(Math.min(high, admitted) * 0.75));
    gate.stop();
  });

  it('backs the rate off when admitted set-ups are slow, and leaves the concurrent cap where it is', () => {
    const clock = new FakeClock();
    const signals = new Signals(clock);
    const gate = new OverloadGate(clock, { concurrentCeiling: 500 }, () => 200, signals);
    gate.start();
    for (let i = 0; i < 99; i++) gate.setUpTook(5);
    gate.setUpTook(400); // one in a hundred slow: the p99 is still 5 ms
    offer(clock, gate, 100, WINDOW_MS);
    expect(gate.state).toMatchObject({ setUpSlow: false, setUpP99Ms: 5, rateLimit: 63 });
    for (let i = 0; i < 90; i++) gate.setUpTook(5);
    for (let i = 0; i < 10; i++) gate.setUpTook(80);
    const admitted = offer(clock, gate, 100, WINDOW_MS);
    expect(gate.state).toMatchObject({ setUpSlow: true, overloaded: false, setUpP99Ms: 80 });
    expect(gate.state.rateLimit).toBe(Math.max(MIN_RATE, Math.floor(Math.min(63, admitted) * 0.75)));
    expect(gate.state.concurrentLimit).toBe(500);
    gate.stop();
  });

  it('never backs the rate off below MIN_RATE, and takes a loop p99 over LOOP_SEVERE_MS as overload', () => {
    const clock = new FakeClock();
    const signals = new Signals(clock);
    signals.delay = 200;
    const gate = new OverloadGate(clock, {}, () => 0, signals);
    gate.start();
    for (let i = 0; i < 20; i++) offer(clock, gate, 2, WINDOW_MS);
    expect(gate.state).toMatchObject({ rateLimit: MIN_RATE, overloaded: true });
    gate.stop();
  });

  it('grows the concurrent cap past its floor under healthy demand, with the loop p99 at 18 ms', () => {
    // The soak's load: 3 calls a second of 9 s each, some 27 up at once, on a node whose loop p99
    // never drops under 10 ms while every frame goes out on time.
    const clock = new FakeClock();
    const signals = new Signals(clock);
    const ends: number[] = [];
    const live = () => ends.filter((t) => t > clock.monotonic()).length;
    const gate = new OverloadGate(clock, {}, live, signals);
    gate.start();
    // One skipped tick while 20 calls are up: the cap falls to its floor.
    for (let i = 0; i < 20; i++) ends.push(9000);
    signals.skipped = 1;
    clock.advance(WINDOW_MS);
    expect(gate.state.concurrentLimit).toBe(MIN_CONCURRENT);
    signals.delay = 18;
    let refused = 0;
    const refusedBySecond: number[] = [];
    for (let second = 0; second < 60; second++) {
      let r = 0;
      for (let k = 0; k < 3; k++) {
        if (gate.admit() === undefined) ends.push(clock.monotonic() + 9000);
        else r++;
        clock.advance(WINDOW_MS / 3);
      }
      refused += r;
      refusedBySecond.push(r);
    }
    expect(gate.state.concurrentLimit).toBeGreaterThanOrEqual(MIN_CONCURRENT + ADD_CONCURRENT);
    expect(gate.state.overloaded).toBe(false);
    // Refusals only while the cap caught up, and none after the first ten seconds.
    expect(refusedBySecond.slice(10).every((r) => r === 0)).toBe(true);
    expect(refused).toBeLessThan(10);
    gate.stop();
  });

  it('cuts the cap to 3/4 of the calls live when frames go out late, once per fill', () => {
    const clock = new FakeClock();
    const signals = new Signals(clock);
    let live = 300;
    const gate = new OverloadGate(clock, { maxCallsPerSecond: 1000 }, () => live, signals);
    gate.start();
    signals.late = 5;
    clock.advance(WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: true, concurrentLimit: 225, rateLimit: 1000 });
    expect(gate.admit()).toEqual({ reason: 'max_concurrent_calls', retryAfter: 5 });
    // Still late while the calls above the cap end: the cut is not counted again.
    live = 260;
    signals.late += 5;
    clock.advance(WINDOW_MS);
    expect(gate.state.concurrentLimit).toBe(225);
    // Down to the cap and still late: cut again.
    live = 225;
    signals.late += 5;
    clock.advance(WINDOW_MS);
    expect(gate.state.concurrentLimit).toBe(168);
    // Healthy, calls pressing on the cap: it grows by ADD_CONCURRENT a second.
    live = 168;
    clock.advance(WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: false, concurrentLimit: 168 + ADD_CONCURRENT });
    // Healthy with few calls: it stays.
    live = 10;
    clock.advance(WINDOW_MS);
    expect(gate.state.concurrentLimit).toBe(168 + ADD_CONCURRENT);
    gate.stop();
  });

  it('keeps the concurrent cap between MIN_CONCURRENT and the ceiling', () => {
    const clock = new FakeClock();
    const signals = new Signals(clock);
    let live = 0;
    const gate = new OverloadGate(clock, { concurrentCeiling: 100 }, () => live, signals);
    gate.start();
    signals.delay = 150;
    clock.advance(WINDOW_MS * 3);
    expect(gate.state.concurrentLimit).toBe(MIN_CONCURRENT);
    signals.delay = 0;
    live = 1000;
    clock.advance(WINDOW_MS * 20);
    expect(gate.state.concurrentLimit).toBe(100);
    gate.stop();
  });

  it('takes new limits while running: a fixed rate stops the windows, derived ones start them again', () => {
    const clock = new FakeClock();
    const signals = new Signals();
    const gate = new OverloadGate(clock, {}, () => 0, signals);
    gate.start();
    expect(clock.pending()).toBe(1);
    gate.setLimits({ maxCallsPerSecond: 120, maxConcurrentCalls: 500 });
    expect(clock.pending()).toBe(0);
    expect(gate.state).toMatchObject({ rateLimit: 120, concurrentLimit: 500, derived: { rate: false } });
    expect(offer(clock, gate, 1200, 3000)).toBeLessThanOrEqual(120 * 3 + 24);
    gate.setLimits({ maxCallsPerSecond: 120 });
    expect(clock.pending()).toBe(1);
    expect(gate.state).toMatchObject({ rateLimit: 120, derived: { rate: false, concurrent: true } });
    gate.stop();
    expect(clock.pending()).toBe(0);
  });
});
