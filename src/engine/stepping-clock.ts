// Drives a FakeClock from timer to timer: simulations and golden flows jump straight to the next
// due timer instead of stepping blindly, so results (latencies, durations) are exact.
import type { Clock, FakeClock, TimerHandle } from '../shared/clock.js';

export /** A FakeClock that knows when its next timer is due. */
class SteppingClock implements Clock {
  private readonly due = new Map<number, number>();
  constructor(readonly fake: FakeClock) {}
  now(): number {
    return this.fake.now();
  }
  monotonic(): number {
    return this.fake.monotonic();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = this.fake.setTimeout(() => {
      this.due.delete(handle.id);
      fn();
    }, ms);
    this.due.set(handle.id, this.fake.monotonic() + Math.max(0, ms));
    return handle;
  }
  clearTimeout(handle: TimerHandle): void {
    this.due.delete(handle.id);
    this.fake.clearTimeout(handle);
  }
  nextDue(): number | undefined {
    let min: number | undefined;
    for (const at of this.due.values()) if (min === undefined || at < min) min = at;
    return min;
  }
}

/** Lets every pending promise callback run (a macrotask turn; no time passes on the clock). */
export const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Advances to the next due timer; false when there is none. */
export function stepToNextTimer(clock: SteppingClock): boolean {
  const due = clock.nextDue();
  if (due === undefined) return false;
  clock.fake.advance(due - clock.monotonic());
  return true;
}
