import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import {
  INITIAL_RATE,
  MIN_CONCURRENT,
  MIN_RATE,
  OverloadGate,
  WINDOW_MS,
  type LoadSignals,
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

class Signals implements LoadSignals {
  delay = 0;
  skipped = 0;
  loopDelayP99Ms(): number {
    return this.delay;
  }
  mediaFramesSkipped(): number {
    return this.skipped;
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
    const gate = new OverloadGate(
      clock,
      { maxCallsPerSecond: 100, maxConcurrentCalls: 40 },
      () => 39,
      signals,
    );
    gate.start();
    expect(clock.pending()).toBe(0);
    gate.endWindow();
    expect(gate.state).toMatchObject({ rateLimit: 100, concurrentLimit: 40, overloaded: true });
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

  it('backs the rate off to 3/4 of what it admitted when the loop delay p99 exceeds a frame', () => {
    const clock = new FakeClock();
    const signals = new Signals();
    const gate = new OverloadGate(clock, {}, () => 0, signals);
    gate.start();
    for (let i = 0; i < 6; i++) offer(clock, gate, 400, WINDOW_MS);
    const grown = gate.state.rateLimit;
    expect(grown).toBeGreaterThan(150);
    signals.delay = 45;
    const admitted = offer(clock, gate, 400, WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: true, loopDelayP99Ms: 45 });
    expect(gate.state.rateLimit).toBe(Math.floor(Math.min(grown, admitted) * 0.75));
    // A loop between half a frame and a frame: hold still.
    signals.delay = 15;
    const held = gate.state.rateLimit;
    offer(clock, gate, 400, WINDOW_MS);
    expect(gate.state.rateLimit).toBe(held);
    gate.stop();
  });

  it('never backs the rate off below MIN_RATE', () => {
    const clock = new FakeClock();
    const signals = new Signals();
    signals.delay = 200;
    const gate = new OverloadGate(clock, {}, () => 0, signals);
    gate.start();
    for (let i = 0; i < 20; i++) offer(clock, gate, 2, WINDOW_MS);
    expect(gate.state.rateLimit).toBe(MIN_RATE);
    gate.stop();
  });

  it('treats frames the media pacer skipped as overload, and caps concurrency at 9/10 of the calls live', () => {
    const clock = new FakeClock();
    const signals = new Signals();
    let live = 300;
    const gate = new OverloadGate(clock, { maxCallsPerSecond: 1000 }, () => live, signals);
    gate.start();
    signals.skipped = 7;
    clock.advance(WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: true, concurrentLimit: 270, rateLimit: 1000 });
    expect(gate.admit()).toEqual({ reason: 'max_concurrent_calls', retryAfter: 5 });
    // Healthy again, and live calls near the cap: it grows by a tenth.
    live = 260;
    clock.advance(WINDOW_MS);
    expect(gate.state).toMatchObject({ overloaded: false, concurrentLimit: 297 });
    // Healthy with few calls: it stays.
    live = 10;
    clock.advance(WINDOW_MS);
    expect(gate.state.concurrentLimit).toBe(297);
    gate.stop();
  });

  it('keeps the concurrent cap between MIN_CONCURRENT and the ceiling', () => {
    const clock = new FakeClock();
    const signals = new Signals();
    let live = 0;
    const gate = new OverloadGate(clock, { concurrentCeiling: 100 }, () => live, signals);
    gate.start();
    signals.delay = 100;
    clock.advance(WINDOW_MS * 3);
    expect(gate.state.concurrentLimit).toBe(MIN_CONCURRENT);
    signals.delay = 0;
    live = 1000;
    clock.advance(WINDOW_MS * 40);
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
