// The RTP inactivity timeout: a call whose far end vanished without a BYE (it crashed, its NAT
// mapping died) sends no more RTP or RTCP, and nothing else in SIP would ever end the call. A
// cheap periodic check compares the session's receive counters (the worker's figures, mirrored
// here every 100 ms, or this thread's own) with what it saw last: no packet, no allocation, no
// message on the media path is added for it. The silence is measured from the first check that
// saw the last packet, so it ends at most one check interval after the threshold.
//
// While the far end holds the call it may rightly send nothing, so the silence is measured against
// a second, longer bound (MEDIA_HOLD_TIMEOUT_SECONDS), or not at all when that bound is 0: a party
// that died while holding would otherwise keep the call open for ever.
import type { Clock, TimerHandle } from '../../shared/clock.js';

/** How long the far end may be silent: while it sends, and while it holds the call (0: not at all). */
export interface MediaTimeoutBounds {
  /** Silence after which the far end counts as gone; 0: never (a hold bound may still apply). */
  timeoutMs: number;
  /** Silence after which a far end that holds the call counts as gone; absent or 0: never. */
  holdTimeoutMs?: number;
}

export interface MediaTimeoutOptions extends MediaTimeoutBounds {
  clock: Clock;
  /** What has arrived from the far end so far (RTP + RTCP packets accepted); any change is life. */
  activity: () => number;
  /**
   * Whether the far end is not expected to send now (it holds the call, or said it will not
   * send): the silence is measured against holdTimeoutMs instead, and counts from zero again
   * whenever this changes.
   */
  held: () => boolean;
  /** The far end is gone; `held`: it was holding the call (the hold bound ran out). */
  onTimeout: (held: boolean) => void;
  /** How often the counters are read; default 1 s, or the shorter bound when shorter. */
  checkMs?: number;
}

export const MEDIA_TIMEOUT_CHECK_MS = 1000;

export class MediaTimeout {
  private timer: TimerHandle | null = null;
  private seen = 0;
  /** Whether the last check saw the far end holding the call. */
  private wasHeld = false;
  /**
   * Monotonic time of the check that last saw a packet (or the start, or the last check before
   * the hold began or ended).
   */
  private since = 0;
  /** Monotonic time of the last check. */
  private last = 0;
  private readonly checkMs: number;
  private readonly holdTimeoutMs: number;

  constructor(private readonly o: MediaTimeoutOptions) {
    this.holdTimeoutMs = Math.max(0, o.holdTimeoutMs ?? 0);
    const bounds = [o.timeoutMs, this.holdTimeoutMs].filter((ms) => ms > 0);
    this.checkMs = Math.max(1, Math.min(o.checkMs ?? MEDIA_TIMEOUT_CHECK_MS, ...bounds));
  }

  get running(): boolean {
    return this.timer !== null;
  }

  /** Starts counting from now (an answered call: the far end has had no chance to be silent yet). */
  start(): void {
    if (this.timer || (this.o.timeoutMs <= 0 && this.holdTimeoutMs <= 0)) return;
    this.seen = this.o.activity();
    this.wasHeld = this.o.held();
    this.since = this.last = this.o.clock.monotonic();
    this.schedule();
  }

  stop(): void {
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    this.timer = this.o.clock.setTimeout(() => this.check(), this.checkMs);
  }

  private check(): void {
    this.timer = null;
    const now = this.o.clock.monotonic();
    const seen = this.o.activity();
    const held = this.o.held();
    const bound = held ? this.holdTimeoutMs : this.o.timeoutMs;
    if (seen !== this.seen) {
      this.seen = seen;
      this.since = now;
    } else if (held !== this.wasHeld) {
      // A hold or a resume is a sign of life (a re-INVITE): count from the last check before it.
      this.since = this.last;
    } else if (bound <= 0) {
      this.since = now; // this state has no bound: its silence is not counted
    } else if (now - this.since >= bound) {
      this.o.onTimeout(held);
      return;
    }
    this.wasHeld = held;
    this.last = now;
    this.schedule();
  }
}
