// The RTP inactivity timeout: a call whose far end vanished without a BYE (it crashed, its NAT
// mapping died) sends no more RTP or RTCP, and nothing else in SIP would ever end the call. A
// cheap periodic check compares the session's receive counters (the worker's figures, mirrored
// here every 100 ms, or this thread's own) with what it saw last: no packet, no allocation, no
// message on the media path is added for it. The silence is measured from the first check that
// saw the last packet, so it ends at most one check interval after the threshold.
import type { Clock, TimerHandle } from '../../shared/clock.js';

export interface MediaTimeoutOptions {
  clock: Clock;
  /** Silence after which the far end counts as gone. */
  timeoutMs: number;
  /** What has arrived from the far end so far (RTP + RTCP packets accepted); any change is life. */
  activity: () => number;
  /**
   * Whether the far end is not expected to send now (it holds the call, or said it will not
   * send): the silence is not counted, and counts from zero again when this turns false.
   */
  held: () => boolean;
  onTimeout: () => void;
  /** How often the counters are read; default 1 s, or the timeout when shorter. */
  checkMs?: number;
}

export const MEDIA_TIMEOUT_CHECK_MS = 1000;

export class MediaTimeout {
  private timer: TimerHandle | null = null;
  private seen = 0;
  /** Monotonic time of the check that last saw a packet (or the start, or the end of a hold). */
  private since = 0;
  private readonly checkMs: number;

  constructor(private readonly o: MediaTimeoutOptions) {
    this.checkMs = Math.max(1, Math.min(o.checkMs ?? MEDIA_TIMEOUT_CHECK_MS, o.timeoutMs));
  }

  get running(): boolean {
    return this.timer !== null;
  }

  /** Starts counting from now (an answered call: the far end has had no chance to be silent yet). */
  start(): void {
    if (this.timer || this.o.timeoutMs <= 0) return;
    this.seen = this.o.activity();
    this.since = this.o.clock.monotonic();
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
    if (seen !== this.seen || this.o.held()) {
      this.seen = seen;
      this.since = now;
    } else if (now - this.since >= this.o.timeoutMs) {
      this.o.onTimeout();
      return;
    }
    this.schedule();
  }
}
