// Shutdown for calls: from SIGTERM on, admission answers new INVITEs 503 (the
// carrier then tries its next origination URI); calls in progress may finish on their own for up
// to DRAIN_LIMIT_MS on the injected clock; after that whatever is still up is hung up with
// hangup_reason `shutdown`, and a final sweep leaves no call of this node live in the store (other
// nodes' calls are left alone: they are still up). The hang-up itself is bounded too
// (HANG_UP_LIMIT_MS): a call whose teardown waits on something that may never come (a speech
// recogniser's backlog, a peer that never answers our BYE) is left to the sweep, which stores its
// ending. Both limits together stay under main.ts's SHUTDOWN_GRACE_MS (30 s) so the endings are
// stored before the process exits.
import type { TimerHandle } from '../../../shared/clock.js';
import { closeStaleCalls, type SweepDeps } from '../../../modules/calls/call-sweep.js';

/** How long calls in progress may run on after SIGTERM before they are hung up. */
export const DRAIN_LIMIT_MS = 20_000;
/** How long hanging up what is left may take before the sweep closes it in the store instead. */
export const HANG_UP_LIMIT_MS = 5_000;

export interface DrainResult {
  /** Calls were still up at the drain limit and were hung up. */
  hungUp: boolean;
  /** Hanging them up outlasted HANG_UP_LIMIT_MS: the sweep ended them in the store. */
  gaveUp: boolean;
  /** Calls of this node the final sweep found live and closed. */
  swept: number;
}

export interface DrainHooks {
  /** Resolves when no call is up in this process any more (the SIP side knows its dialogs). */
  idle: () => Promise<void>;
  /** Hangs up every call still up: BYE/CANCEL on each leg and ended(id, 'shutdown') for each. */
  hangUpAll: () => Promise<void>;
}

export class CallDrain {
  private started = false;

  constructor(
    private readonly deps: SweepDeps,
    private readonly limitMs = DRAIN_LIMIT_MS,
    private readonly hangUpLimitMs = HANG_UP_LIMIT_MS,
  ) {}

  /** For AdmissionDeps.draining: true from the moment drain() is called. */
  readonly draining = (): boolean => this.started;

  /** Refuse new calls, wait for the live ones up to the limit, hang up the rest, sweep this node's. */
  async drain(hooks: DrainHooks): Promise<DrainResult> {
    this.started = true;
    const hungUp = (await this.within(hooks.idle(), this.limitMs)) === 'limit';
    // A hang-up that fails or hangs must not keep the sweep (and the process's exit) waiting.
    const gaveUp =
      hungUp &&
      (await this.within(
        hooks.hangUpAll().catch(() => undefined),
        this.hangUpLimitMs,
      )) === 'limit';
    const { calls } = await closeStaleCalls(this.deps, 'shutdown');
    return { hungUp, gaveUp, swept: calls };
  }

  /** 'done' when `work` settles within `ms` on the clock, else 'limit'. */
  private async within(work: Promise<void>, ms: number): Promise<'done' | 'limit'> {
    let timer: TimerHandle | null = null;
    const limit = new Promise<'limit'>((resolve) => {
      timer = this.deps.clock.setTimeout(() => resolve('limit'), ms);
    });
    const first = await Promise.race([work.then(() => 'done' as const), limit]);
    if (timer) this.deps.clock.clearTimeout(timer);
    return first;
  }
}
