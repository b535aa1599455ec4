// Session timers (RFC 4028) on a dialog of ours, whichever side of it we are: the caller's leg of a
// live call (live-call.ts) and a warm transfer's human leg (transfer-warm.ts).
//
// - `DialogTimer` runs the timer a 2xx (or a refresh) set: when we refresh, an UPDATE at half the
//   interval carrying `Session-Expires: N;refresher=uac` (we are the UAC of the UPDATE and stay the
//   refresher), re-read from its 2xx (the far end may shorten it or take the refresher role); a
//   408/481, no answer or a dead dialog is `lost`. When the far end refreshes and nothing came in
//   time (interval less min(32 s, a third)), it is `lost` too.
// - `timerInviteHeaders` are what an INVITE we send carries to ask for timers (Supported: timer,
//   Session-Expires, Min-SE; UacLeg's `inviteHeaders`, which also retries a 422 with the far end's
//   Min-SE), and `timerOfOur2xx` reads the 2xx's Session-Expires (UacLeg's `on2xx`) for the timer.
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import type { DialogRequests } from '../../sip/dialog-requests.js';
import {
  DEFAULT_TIMER_POLICY,
  MIN_SE_FLOOR,
  parseMinSE,
  timerFrom2xx,
  timerSchedule,
  type SessionExpires,
  type TimerPolicy,
} from '../../sip/extensions/session-timer.js';
import { getHeader } from '../../sip/message/access.js';
import type { HeaderInit } from '../../sip/message/build.js';
import type { SipResponse } from '../../sip/message/types.js';

/** A dialog's session timer as we run it: the interval, and whether we are the refresher. */
export interface DialogTimerState {
  seconds: number;
  weRefresh: boolean;
}

/** What we ask for on our INVITEs: RFC 4028's recommended 1800 s, our Min-SE of 90 s. */
export const OUR_TIMER_POLICY: TimerPolicy = DEFAULT_TIMER_POLICY;

/**
 * The timer set by the 2xx to our INVITE (we are its UAC): refresher=uac is us. A 2xx without
 * Session-Expires means no timer (the far end does not do them; RFC 4028 7.2: none runs).
 */
export function timerOfOur2xx(res: SipResponse): DialogTimerState | undefined {
  const se = timerFrom2xx(res);
  if (!se) return undefined;
  // Without a refresher the UAS left it to us (RFC 4028 7.2: the UAC then refreshes).
  return { seconds: se.seconds, weRefresh: se.refresher !== 'uas' };
}

/** The timer a far-end request set that we answered (we are its UAS): refresher=uas is us. */
export function timerOfTheirRequest(
  timer: (SessionExpires & { refresher: 'uac' | 'uas' }) | undefined,
): DialogTimerState | undefined {
  return timer ? { seconds: timer.seconds, weRefresh: timer.refresher === 'uas' } : undefined;
}

export class DialogTimer {
  private handle: TimerHandle | null = null;
  private stopped = false;
  /** The timer now running, if any (tests and logs). */
  state: DialogTimerState | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly leg: Pick<DialogRequests, 'sendInDialog'>,
    /** The dialog is dead: a refresh failed, or the far end's never came. */
    private readonly lost: () => void,
  ) {}

  /** (Re)starts the timer from now; undefined: none runs. */
  arm(state: DialogTimerState | undefined): void {
    this.clear();
    this.state = state;
    if (!state || this.stopped) return;
    const plan = timerSchedule({ seconds: state.seconds }, state.weRefresh);
    if (plan.refreshAtMs === undefined) {
      this.handle = this.clock.setTimeout(() => this.expire(), plan.expireAtMs);
      return;
    }
    this.handle = this.clock.setTimeout(() => {
      this.handle = null;
      const headers: HeaderInit[] = [
        ['Session-Expires', `${state.seconds};refresher=uac`],
        ['Supported', 'timer'],
      ];
      this.leg.sendInDialog('UPDATE', { headers }).then(
        (res) => {
          if (this.stopped) return;
          if (res.status === 408 || res.status === 481) return this.expire();
          if (res.status === 422) {
            // Too small for them: RFC 4028 says retry with their Min-SE; we take it for next time.
            const min = parseMinSE(getHeader(res, 'Min-SE'));
            const seconds = min !== undefined && min > state.seconds ? min : state.seconds;
            return this.arm({ seconds, weRefresh: true });
          }
          // A 2xx says what holds now; anything else leaves the timer as it was (retry at half).
          this.arm(res.status < 300 ? (timerOfOur2xx(res) ?? state) : state);
        },
        () => this.expire(),
      );
    }, plan.refreshAtMs);
  }

  private expire(): void {
    this.handle = null;
    if (this.stopped) return;
    this.stop();
    this.lost();
  }

  private clear(): void {
    if (this.handle) this.clock.clearTimeout(this.handle);
    this.handle = null;
  }

  /** The dialog is over: no more refreshes or expiries. */
  stop(): void {
    this.stopped = true;
    this.clear();
  }
}

/** The timer headers of an INVITE we send (UacLeg's `inviteHeaders`). */
export function timerInviteHeaders(policy: TimerPolicy = OUR_TIMER_POLICY): [string, string][] {
  const minSE = Math.max(policy.minSE, MIN_SE_FLOOR);
  return [
    ['Supported', 'timer'],
    ['Session-Expires', String(Math.max(policy.sessionExpires, minSE))],
    ['Min-SE', String(minSE)],
  ];
}
