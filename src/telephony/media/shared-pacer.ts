// One 20 ms timer for every call on the node instead of two per call: at 500 calls that is 50
// timer callbacks a second rather than 50,000. Each subscriber gets its own tick numbering from
// the moment it starts (so RTP timestamps stay per stream), on the shared grid of absolute
// monotonic due times, with the shared Pacer's drift-free catch-up. The timer runs only while
// someone listens.
//
// It also counts the ticks that went out late (overload control reads them): a tick whose frames
// were all handed on more than LATE_TICK_MS after it was due; skipped ticks are the Pacer's own.

import type { Clock } from '../../shared/clock.js';
import { Pacer } from './pacer.js';

/** What RtpSender and MediaReceiver need from a frame clock; Pacer and subscriptions both fit. */
export interface FrameTicker {
  readonly running: boolean;
  start(): void;
  stop(): void;
  /** Monotonic time this ticker's tick `index` is (or was) due. */
  dueAt(index: number): number;
}

/** Two frames: past what a 40 ms jitter buffer at the far end hides. */
export const LATE_TICK_MS = 40;

/** Running totals of the frame ticks (each tick sends one frame of every call up). */
export interface FrameTickCounts {
  /** Ticks that fell due: sent or skipped. */
  readonly due: number;
  /** Ticks sent more than LATE_TICK_MS after they were due. */
  readonly late: number;
  /** Ticks never sent: the loop was too far behind for them (Pacer's catch-up limit). */
  readonly skipped: number;
}

export class SharedPacer {
  private readonly pacer: Pacer;
  private readonly live = new Set<Subscription>();
  private lateTicks = 0;

  constructor(clock: Clock, periodMs = 20, maxBurst = 3) {
    this.pacer = new Pacer(clock, { periodMs, maxBurst }, (i) => {
      // A copy: a subscriber may stop (leave the set) from inside its tick.
      for (const s of [...this.live]) s.fire(i);
      // Measured after the tick's work, so a tick too heavy to finish in time counts as well.
      if (clock.monotonic() - this.pacer.dueAt(i) > LATE_TICK_MS) this.lateTicks++;
    });
  }

  /** What overload control reads: ticks due, late and never sent, since the node started. */
  get ticks(): FrameTickCounts {
    return {
      due: this.pacer.emitted + this.pacer.skipped,
      late: this.lateTicks,
      skipped: this.pacer.skipped,
    };
  }

  /** Subscribers currently ticking. */
  get size(): number {
    return this.live.size;
  }

  get skipped(): number {
    return this.pacer.skipped;
  }

  subscribe(onTick: (index: number) => void): FrameTicker {
    return new Subscription(this, onTick);
  }

  /** @internal The shared index a subscriber starting now takes as its tick 0. */
  nextBase(): number {
    return this.pacer.running ? this.pacer.nextIndex : 0;
  }

  /** @internal */
  join(s: Subscription): void {
    this.live.add(s);
    // The first subscriber starts the timer, whose tick 0 fires at once, as a Pacer's would.
    if (!this.pacer.running) this.pacer.start();
  }

  /** @internal */
  leave(s: Subscription): void {
    this.live.delete(s);
    if (this.live.size === 0) this.pacer.stop();
  }

  /** @internal */
  sharedDueAt(index: number): number {
    return this.pacer.dueAt(index);
  }
}

class Subscription implements FrameTicker {
  private base = 0;
  private active = false;

  constructor(
    private readonly parent: SharedPacer,
    private readonly onTick: (index: number) => void,
  ) {}

  get running(): boolean {
    return this.active;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.base = this.parent.nextBase();
    this.parent.join(this);
  }

  stop(): void {
    if (!this.active) return;
    this.active = false;
    this.parent.leave(this);
  }

  dueAt(index: number): number {
    return this.parent.sharedDueAt(this.base + index);
  }

  fire(sharedIndex: number): void {
    if (this.active && sharedIndex >= this.base) this.onTick(sharedIndex - this.base);
  }
}
