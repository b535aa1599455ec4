// Overload control for new calls: the node's capacity, checked by the SIP stack on every INVITE
// that opens a dialog before the call controller sees it, so a call over capacity is answered
// `503 Service Unavailable` with `Retry-After` at once, without a store read, a media port or a
// span. Retransmissions are absorbed by the INVITE's server transaction and never count twice.
//
// Two limits, each either fixed or derived:
// - concurrent calls (MAX_CONCURRENT_CALLS): calls live on the node, in set-up or up, either
//   direction; an INVITE arriving with that many is refused (`Retry-After: 5`, since a slot frees
//   only when a call ends);
// - new calls per second (MAX_CALLS_PER_SECOND): a token bucket holding a fifth of a second's
//   calls (at least one), so a steady offer above the rate gets exactly the rate through and a
//   burst cannot bunch a whole second's set-ups together (`Retry-After: 1`).
//
// A limit left unset is derived from what the node measures, once per second (WINDOW_MS):
// - the window is *overloaded* when the event loop's delay p99 over it exceeded one media frame
//   (20 ms: a frame due then went out late), or when the media pacer skipped frames in it;
// - overloaded: the rate becomes 3/4 of the calls admitted in the window (of the rate, if fewer
//   were offered), and the concurrent cap 9/10 of the calls live now, never under the floors
//   (MIN_RATE, MIN_CONCURRENT): new calls back off until the loop catches up;
// - healthy (p99 under half a frame, nothing skipped) while the limit was what held calls back
//   (at least 9/10 of it used): the rate grows by a quarter and the concurrent cap by a tenth, up
//   to the ceilings (the RTP ports the node has for concurrent calls; MAX_DERIVED_RATE);
// - in between, nothing changes.
// The derived rate starts at INITIAL_RATE (a cold node must not take a carrier's full burst before
// it has measured anything) and the concurrent cap at its ceiling. A fixed limit never moves.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Clock, TimerHandle } from '../../shared/clock.js';

export interface OverloadLimits {
  /** MAX_CONCURRENT_CALLS; undefined: derived. */
  readonly maxConcurrentCalls?: number;
  /** MAX_CALLS_PER_SECOND; undefined: derived. */
  readonly maxCallsPerSecond?: number;
  /** The highest the derived concurrent cap goes (default: 10,000; the node passes its RTP ports). */
  readonly concurrentCeiling?: number;
}

/** What the node measures; the derived limits read it once per window. */
export interface LoadSignals {
  /** Event-loop delay p99 in ms since the previous call (the call starts a new window). */
  loopDelayP99Ms(): number;
  /** Media frames skipped so far (a running total), because they were due too long ago. */
  mediaFramesSkipped(): number;
}

export type OverloadReason = 'max_concurrent_calls' | 'max_calls_per_second';

export interface OverloadRefusal {
  readonly reason: OverloadReason;
  /** Seconds for the Retry-After header field. */
  readonly retryAfter: number;
}

export interface OverloadState {
  readonly concurrentLimit: number;
  readonly rateLimit: number;
  readonly derived: { readonly concurrent: boolean; readonly rate: boolean };
  /** The last window's event-loop delay p99 (ms), 0 before the first window ends. */
  readonly loopDelayP99Ms: number;
  readonly overloaded: boolean;
}

export const WINDOW_MS = 1000;
/** One media frame: a loop delayed longer than this sends some frame late. */
export const FRAME_MS = 20;
export const INITIAL_RATE = 50;
export const MIN_RATE = 20;
export const MAX_DERIVED_RATE = 5000;
export const MIN_CONCURRENT = 20;
export const DEFAULT_CONCURRENT_CEILING = 10_000;

export class OverloadGate {
  private refilledAt: number;
  private admittedInWindow = 0;
  private rateRefusedInWindow = 0;
  private skippedBefore = 0;
  private lastDelay = 0;
  private overloaded = false;
  private timer: TimerHandle | null = null;
  private derivedRate = true;
  private derivedConcurrent = true;
  private ceiling = DEFAULT_CONCURRENT_CEILING;
  private rate = INITIAL_RATE;
  private concurrent = DEFAULT_CONCURRENT_CEILING;
  private tokens = 0;
  /** start() was called and stop() not since: windows run whenever a limit is derived. */
  private started = false;

  constructor(
    private readonly clock: Clock,
    limits: OverloadLimits,
    /** Calls holding the node now (set-ups included; a call stops counting when it ends). */
    private readonly active: () => number,
    private readonly signals?: LoadSignals,
    /** Told after every window (metrics). */
    private readonly onWindow?: (state: OverloadState) => void,
  ) {
    this.refilledAt = clock.monotonic();
    this.setLimits(limits);
  }

  /**
   * Takes new limits, as at construction (the benchmark sets the rate it measured; an operator
   * could too): derived ones start over from their initial values.
   */
  setLimits(limits: OverloadLimits): void {
    const wasStarted = this.started;
    this.stop();
    this.derivedRate = limits.maxCallsPerSecond === undefined;
    this.derivedConcurrent = limits.maxConcurrentCalls === undefined;
    this.ceiling = Math.max(MIN_CONCURRENT, limits.concurrentCeiling ?? DEFAULT_CONCURRENT_CEILING);
    this.rate = limits.maxCallsPerSecond ?? INITIAL_RATE;
    this.concurrent = limits.maxConcurrentCalls ?? this.ceiling;
    this.tokens = this.burst;
    if (wasStarted) this.start();
  }

  /** Starts the measuring windows (only needed when a limit is derived). */
  start(): void {
    this.started = true;
    if (this.timer || !(this.derivedRate || this.derivedConcurrent)) return;
    this.skippedBefore = this.signals?.mediaFramesSkipped() ?? 0;
    this.signals?.loopDelayP99Ms();
    const tick = (): void => {
      this.timer = this.clock.setTimeout(tick, WINDOW_MS);
      this.endWindow();
    };
    this.timer = this.clock.setTimeout(tick, WINDOW_MS);
  }

  stop(): void {
    this.started = false;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  get state(): OverloadState {
    return {
      concurrentLimit: this.concurrent,
      rateLimit: this.rate,
      derived: { concurrent: this.derivedConcurrent, rate: this.derivedRate },
      loopDelayP99Ms: this.lastDelay,
      overloaded: this.overloaded,
    };
  }

  private get burst(): number {
    return Math.max(1, this.rate / 5);
  }

  /** One new call: undefined admits it (and counts it), else why it is refused. */
  admit(): OverloadRefusal | undefined {
    if (this.active() >= this.concurrent) {
      return { reason: 'max_concurrent_calls', retryAfter: 5 };
    }
    const now = this.clock.monotonic();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
    this.refilledAt = now;
    if (this.tokens < 1) {
      this.rateRefusedInWindow++;
      return { reason: 'max_calls_per_second', retryAfter: 1 };
    }
    this.tokens -= 1;
    this.admittedInWindow++;
    return undefined;
  }

  /** The end of a window: the derived limits follow what was measured in it (rules above). */
  endWindow(): void {
    const delay = this.signals?.loopDelayP99Ms() ?? 0;
    const skippedNow = this.signals?.mediaFramesSkipped() ?? 0;
    const skipped = skippedNow - this.skippedBefore;
    this.skippedBefore = skippedNow;
    this.lastDelay = delay;
    this.overloaded = delay > FRAME_MS || skipped > 0;
    const healthy = delay < FRAME_MS / 2 && skipped === 0;
    const admitted = this.admittedInWindow * (WINDOW_MS / 1000);
    const live = this.active();
    if (this.derivedRate) {
      if (this.overloaded) {
        this.rate = Math.max(MIN_RATE, Math.floor(Math.min(this.rate, admitted) * 0.75));
      } else if (healthy && (admitted >= this.rate * 0.9 || this.rateRefusedInWindow > 0)) {
        this.rate = Math.min(MAX_DERIVED_RATE, Math.ceil(this.rate * 1.25));
      }
      this.tokens = Math.min(this.tokens, this.burst);
    }
    if (this.derivedConcurrent) {
      if (this.overloaded) {
        this.concurrent = Math.max(MIN_CONCURRENT, Math.floor(Math.min(this.concurrent, live) * 0.9));
      } else if (healthy && live >= this.concurrent * 0.9) {
        this.concurrent = Math.min(this.ceiling, Math.ceil(this.concurrent * 1.1));
      }
    }
    this.admittedInWindow = 0;
    this.rateRefusedInWindow = 0;
    this.onWindow?.(this.state);
  }
}

/**
 * The process's own signals: the event loop's delay from perf_hooks (sampled every 10 ms, its
 * histogram reset at each read) and the frames the node's media pacer skipped.
 */
export function processLoadSignals(mediaFramesSkipped: () => number): LoadSignals & { close(): void } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    loopDelayP99Ms() {
      const p99 = h.count > 0 ? h.percentile(99) / 1e6 : 0;
      h.reset();
      return p99;
    },
    mediaFramesSkipped,
    close: () => h.disable(),
  };
}
