// Time comes in through this interface so timers, retry schedules and quota periods are tested
// on a fake clock, never with sleeps.

export interface Clock {
  /** Wall-clock milliseconds since the epoch. */
  now(): number;
  /** Monotonic milliseconds, for measuring durations and pacing. */
  monotonic(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly id: number;
}

let timerSeq = 0;
const liveTimers = new Map<number, NodeJS.Timeout>();

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout(fn, ms) {
    const id = ++timerSeq;
    liveTimers.set(
      id,
      setTimeout(() => {
        liveTimers.delete(id);
        fn();
      }, ms),
    );
    return { id };
  },
  clearTimeout(handle) {
    const t = liveTimers.get(handle.id);
    if (t) clearTimeout(t);
    liveTimers.delete(handle.id);
  },
};

/** A clock that only moves when told to; timers fire in order during advance(). */
export class FakeClock implements Clock {
  private current: number;
  private mono = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start: number | string | Date = '2026-01-01T00:00:00Z') {
    this.current = typeof start === 'number' ? start : new Date(start).getTime();
  }

  now(): number {
    return this.current;
  }

  monotonic(): number {
    return this.mono;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { at: this.mono + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  /** Number of timers still waiting. */
  pending(): number {
    return this.timers.size;
  }

  /** Moves time forward, firing each due timer at its own instant (earliest first). */
  advance(ms: number): void {
    const target = this.mono + ms;
    for (;;) {
      let nextId = -1;
      let nextAt = Infinity;
      for (const [id, t] of this.timers) {
        if (t.at <= target && (t.at < nextAt || (t.at === nextAt && id < nextId))) {
          nextAt = t.at;
          nextId = id;
        }
      }
      if (nextId < 0) break;
      const timer = this.timers.get(nextId)!;
      this.timers.delete(nextId);
      this.current += timer.at - this.mono;
      this.mono = timer.at;
      timer.fn();
    }
    this.current += target - this.mono;
    this.mono = target;
  }

  /** Sets the wall clock without firing timers (e.g. to jump into another month). */
  set(to: number | string | Date): void {
    this.current = typeof to === 'number' ? to : new Date(to).getTime();
  }

  /** Advances and lets promise callbacks run between timers. */
  async advanceAsync(ms: number, step = ms): Promise<void> {
    let left = ms;
    while (left > 0) {
      const d = Math.min(step, left);
      this.advance(d);
      left -= d;
      for (let i = 0; i < 5; i++) await Promise.resolve();
    }
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
}

/** ISO 8601 UTC with seconds precision, the spec's timestamp form (YYYY-MM-DDTHH:MM:SSZ). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
