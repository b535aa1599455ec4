// A periodic tick scheduled against absolute monotonic time: tick n is due at start + n*period,
// whatever the timers' own lateness, so a stream of 20 ms frames never drifts from the wall. When
// the event loop stalls, the ticks missed are caught up at once, at most `maxBurst` of them; older
// ones are skipped (counted) so a long stall never turns into a burst the far end must absorb.

import type { Clock, TimerHandle } from '../../shared/clock.js';

export interface PacerOptions {
  periodMs: number;
  /** Ticks emitted back to back after a stall before the rest are skipped. */
  maxBurst?: number;
}

export class Pacer {
  private startedAt = 0;
  /** Index of the next tick to emit. */
  private next = 0;
  private timer: TimerHandle | null = null;
  private active = false;
  /** Ticks not emitted because the loop was too late for them. */
  skipped = 0;
  emitted = 0;

  constructor(
    private readonly clock: Clock,
    private readonly options: PacerOptions,
    /** Called with the tick's index; the index, not a counter of calls, dates the frame. */
    private readonly onTick: (index: number) => void,
  ) {}

  get running(): boolean {
    return this.active;
  }

  /** Index of the next tick to be emitted. */
  get nextIndex(): number {
    return this.next;
  }

  /** Monotonic time tick `index` is due. */
  dueAt(index: number): number {
    return this.startedAt + index * this.options.periodMs;
  }

  /** Starts with tick 0 now. */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.startedAt = this.clock.monotonic();
    this.next = 0;
    this.fire();
  }

  stop(): void {
    this.active = false;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private fire = (): void => {
    this.timer = null;
    const { periodMs } = this.options;
    const maxBurst = this.options.maxBurst ?? 3;
    const now = this.clock.monotonic();
    // Every tick due by now; a hair of tolerance for timers that fire a fraction early.
    const due = Math.floor((now - this.startedAt + 0.5) / periodMs);
    const behind = due - this.next + 1;
    if (behind > maxBurst) {
      this.skipped += behind - maxBurst;
      this.next += behind - maxBurst;
    }
    while (this.next <= due) {
      const index = this.next++;
      this.emitted++;
      this.onTick(index);
      if (!this.active) return; // onTick may stop the pacer
    }
    this.timer = this.clock.setTimeout(
      this.fire,
      Math.max(0, this.dueAt(this.next) - this.clock.monotonic()),
    );
  };
}
