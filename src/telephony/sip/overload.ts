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
// A limit left unset is derived from what the node measures, once per second (WINDOW_MS). What
// tells that the node carries too much is its audio: the frame ticks of the media pacer (each sends
// one 20 ms frame of every call up) that went out late or never. The event loop's delay alone does
// not: the whole service's loop p99 sits at 10-20 ms on an idle machine while every frame leaves
// on time, and a cap that followed it stayed at its floor with the machine idle. So a window is
// - *media-overloaded* when the pacer skipped a tick in it (frames never sent), or more than
//   LATE_SHARE of its ticks went out over LATE_TICK_MS late, or, the backstop when no call is up to
//   show it, the loop's delay p99 exceeded LOOP_SEVERE_MS;
// - *set-up-slow* when the p99 of the set-ups that finished in it (an admitted INVITE to its
//   answer) exceeded SETUP_SLOW_MS;
// - *healthy* when neither.
// The concurrent cap follows AIMD, like TCP's window: healthy while the cap held calls back (calls
// refused for it in the window, or the calls live within ADD_CONCURRENT of it), it grows by
// ADD_CONCURRENT, up to the ceiling (the RTP port pairs the node has); media-overloaded, it falls
// to 3/4 of the calls live (never under MIN_CONCURRENT), unless the calls live are still above the
// cap (an earlier cut, waiting for calls to end: cutting again would only count the same overload
// twice). A slow set-up does not move it: concurrency costs media, and media was on time.
// The rate: media-overloaded or set-up-slow, 3/4 of the calls admitted in the window (of the rate,
// if fewer were offered), never under MIN_RATE; healthy while the limit held calls back (9/10 of it
// used, or calls refused for it), a quarter more, up to MAX_DERIVED_RATE.
// The derived rate starts at INITIAL_RATE (a cold node must not take a carrier's full burst before
// it has measured anything), which also paces how fast concurrency can build up, so the
// concurrent cap starts at its ceiling. A fixed limit never moves.
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

/** Running totals of the media pacer's frame ticks (each sends a frame of every call up). */
export interface MediaTicks {
  /** Ticks that fell due, sent or not. */
  readonly due: number;
  /** Ticks sent more than LATE_TICK_MS (two frames) after they were due. */
  readonly late: number;
  /** Ticks never sent (the pacer was too far behind for them). */
  readonly skipped: number;
}

/** What the node measures; the derived limits read it once per window. */
export interface LoadSignals {
  /** Event-loop delay p99 in ms since the previous call (the call starts a new window). */
  loopDelayP99Ms(): number;
  /** The media pacer's ticks so far (running totals; the gate takes differences per window). */
  mediaTicks(): MediaTicks;
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
  /** The last window's media ticks: due, late and never sent. */
  readonly ticks: MediaTicks;
  /** The last window's set-up p99 (ms), 0 when none finished in it. */
  readonly setUpP99Ms: number;
  /** The last window was media-overloaded (late or unsent frames, or the loop's severe delay). */
  readonly overloaded: boolean;
  /** The last window's set-ups were slow. */
  readonly setUpSlow: boolean;
}

export const WINDOW_MS = 1000;
/** Over this share of a window's ticks late (more than one of a second's 50): media-overloaded. */
export const LATE_SHARE = 0.02;
/**
 * The loop's delay p99 that is overload whatever the media says (five frames: the pacer would be
 * skipping frames, were any call up to have them).
 */
export const LOOP_SEVERE_MS = 100;
/** Set-ups slower than this (p99 of a window): the rate backs off. */
export const SETUP_SLOW_MS = 50;
export const INITIAL_RATE = 50;
export const MIN_RATE = 20;
export const MAX_DERIVED_RATE = 5000;
export const MIN_CONCURRENT = 20;
/** The concurrent cap's additive step, per healthy window in which it held calls back. */
export const ADD_CONCURRENT = 10;
export const DEFAULT_CONCURRENT_CEILING = 10_000;
/** Set-up durations kept per window for its p99 (more are sampled, one in every few). */
const MAX_SETUP_SAMPLES = 4096;

const NO_TICKS: MediaTicks = { due: 0, late: 0, skipped: 0 };

export class OverloadGate {
  private refilledAt: number;
  private admittedInWindow = 0;
  private rateRefusedInWindow = 0;
  private concurrentRefusedInWindow = 0;
  private ticksBefore: MediaTicks = NO_TICKS;
  private setUps: number[] = [];
  private setUpsSeen = 0;
  private lastDelay = 0;
  private lastTicks: MediaTicks = NO_TICKS;
  private lastSetUpP99 = 0;
  private overloaded = false;
  private setUpSlow = false;
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
    this.ticksBefore = this.signals?.mediaTicks() ?? NO_TICKS;
    this.signals?.loopDelayP99Ms();
    this.setUps = [];
    this.setUpsSeen = 0;
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
      ticks: this.lastTicks,
      setUpP99Ms: this.lastSetUpP99,
      overloaded: this.overloaded,
      setUpSlow: this.setUpSlow,
    };
  }

  private get burst(): number {
    return Math.max(1, this.rate / 5);
  }

  /** One new call: undefined admits it (and counts it), else why it is refused. */
  admit(): OverloadRefusal | undefined {
    if (this.active() >= this.concurrent) {
      this.concurrentRefusedInWindow++;
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

  /**
   * An admitted INVITE's set-up took `ms` (to its answer). Kept for the window's p99; past
   * MAX_SETUP_SAMPLES in a window, a reservoir sample stands for them.
   */
  setUpTook(ms: number): void {
    if (!this.derivedRate) return;
    this.setUpsSeen++;
    if (this.setUps.length < MAX_SETUP_SAMPLES) this.setUps.push(ms);
    else {
      const k = Math.floor(Math.random() * this.setUpsSeen);
      if (k < MAX_SETUP_SAMPLES) this.setUps[k] = ms;
    }
  }

  /** The end of a window: the derived limits follow what was measured in it (rules above). */
  endWindow(): void {
    const delay = this.signals?.loopDelayP99Ms() ?? 0;
    const total = this.signals?.mediaTicks() ?? NO_TICKS;
    const ticks: MediaTicks = {
      due: total.due - this.ticksBefore.due,
      late: total.late - this.ticksBefore.late,
      skipped: total.skipped - this.ticksBefore.skipped,
    };
    this.ticksBefore = total;
    const setUpP99 = p99(this.setUps);
    this.lastDelay = delay;
    this.lastTicks = ticks;
    this.lastSetUpP99 = setUpP99;
    this.overloaded = ticks.skipped > 0 || ticks.late > ticks.due * LATE_SHARE || delay > LOOP_SEVERE_MS;
    this.setUpSlow = setUpP99 > SETUP_SLOW_MS;
    const healthy = !this.overloaded && !this.setUpSlow;
    const admitted = this.admittedInWindow * (WINDOW_MS / 1000);
    const live = this.active();
    if (this.derivedRate) {
      if (!healthy) {
        this.rate = Math.max(MIN_RATE, Math.floor(Math.min(this.rate, admitted) * 0.75));
      } else if (admitted >= this.rate * 0.9 || this.rateRefusedInWindow > 0) {
        this.rate = Math.min(MAX_DERIVED_RATE, Math.ceil(this.rate * 1.25));
      }
      this.tokens = Math.min(this.tokens, this.burst);
    }
    if (this.derivedConcurrent) {
      if (this.overloaded) {
        if (live <= this.concurrent) {
          this.concurrent = Math.max(MIN_CONCURRENT, Math.floor(live * 0.75));
        }
      } else if (
        healthy &&
        (this.concurrentRefusedInWindow > 0 || live >= this.concurrent - ADD_CONCURRENT)
      ) {
        this.concurrent = Math.min(this.ceiling, this.concurrent + ADD_CONCURRENT);
      }
    }
    this.admittedInWindow = 0;
    this.rateRefusedInWindow = 0;
    this.concurrentRefusedInWindow = 0;
    this.setUps = [];
    this.setUpsSeen = 0;
    this.onWindow?.(this.state);
  }
}

/** The 99th percentile (nearest rank) of `values`, 0 for none. */
function p99(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

/**
 * The process's own signals: the event loop's delay from perf_hooks (sampled every 10 ms, its
 * histogram reset at each read) and the node's media pacer's ticks.
 */
export function processLoadSignals(mediaTicks: () => MediaTicks): LoadSignals & { close(): void } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    loopDelayP99Ms() {
      const p99 = h.count > 0 ? h.percentile(99) / 1e6 : 0;
      h.reset();
      return p99;
    },
    mediaTicks,
    close: () => h.disable(),
  };
}
