// Shutdown for calls: from SIGTERM on, admission answers new INVITEs 503 (the
// carrier then tries its next origination URI); calls in progress may finish on their own for up
// to DRAIN_LIMIT_MS on the injected clock; after that whatever is still up is hung up with
// hangup_reason `shutdown`, and a final sweep leaves no call of this node live in the store (other
// nodes' calls are left alone: they are still up). The limit stays under main.ts's
// SHUTDOWN_GRACE_MS (30 s) so the endings are stored before the process exits.
import type { TimerHandle } from '../../../shared/clock.js';
import { closeStaleCalls, type SweepDeps } from '../../../modules/calls/call-sweep.js';

/** How long calls in progress may run on after SIGTERM before they are hung up. */
export const DRAIN_LIMIT_MS = 20_000;

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
  ) {}

  /** For AdmissionDeps.draining: true from the moment drain() is called. */
  readonly draining = (): boolean => this.started;

  /** Refuse new calls, wait for the live ones up to the limit, hang up the rest, sweep this node's. */
  async drain(hooks: DrainHooks): Promise<{ hungUp: boolean; swept: number }> {
    this.started = true;
    let timer: TimerHandle | null = null;
    const limit = new Promise<'limit'>((resolve) => {
      timer = this.deps.clock.setTimeout(() => resolve('limit'), this.limitMs);
    });
    const first = await Promise.race([hooks.idle().then(() => 'idle' as const), limit]);
    if (timer) this.deps.clock.clearTimeout(timer);
    const hungUp = first === 'limit';
    if (hungUp) await hooks.hangUpAll();
    const { calls } = await closeStaleCalls(this.deps, 'shutdown');
    return { hungUp, swept: calls };
  }
}
