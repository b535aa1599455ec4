// Session timers (RFC 4028): read Session-Expires and Min-SE, decide the interval and who
// refreshes as UAS, when to refresh or give up, so long calls are kept alive, not dropped, and how
// a UAC asks again after a 422 (Session Interval Too Small).
import { getHeader, getTokens } from '../message/access.js';
import type { SipMessage, SipRequest, SipResponse } from '../message/types.js';
import { nextAttempt } from '../next-attempt.js';

export interface SessionExpires {
  readonly seconds: number;
  readonly refresher?: 'uac' | 'uas';
}

/** RFC 4028 4: Min-SE may not go below 90 seconds. */
export const MIN_SE_FLOOR = 90;

export function parseSessionExpires(value: string | undefined): SessionExpires | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*(\d{1,10})\s*((?:;.*)?)$/.exec(value);
  if (!m) return undefined;
  const seconds = Number(m[1]);
  const r = /;\s*refresher\s*=\s*(uac|uas)\b/i.exec(m[2])?.[1]?.toLowerCase();
  return r === 'uac' || r === 'uas' ? { seconds, refresher: r } : { seconds };
}

/** A Min-SE value (delta-seconds, parameters ignored), or undefined when unreadable. */
export function parseMinSE(value: string | undefined): number | undefined {
  const m = /^\s*(\d{1,10})\s*(?:;.*)?$/.exec(value ?? '');
  return m ? Number(m[1]) : undefined;
}

export interface TimerPolicy {
  /** What we ask for when the peer does not (seconds). */
  readonly sessionExpires: number;
  /** The shortest interval we accept; shorter gets 422 (RFC 4028 8.1). */
  readonly minSE: number;
}

export const DEFAULT_TIMER_POLICY: TimerPolicy = { sessionExpires: 1800, minSE: MIN_SE_FLOOR };

export type UasTimerDecision =
  | {
      readonly ok: true;
      readonly timer?: SessionExpires & { readonly refresher: 'uac' | 'uas' };
      readonly headers: ReadonlyArray<readonly [string, string]>;
    }
  | {
      readonly ok: false;
      readonly status: 422;
      readonly reason: 'Session Interval Too Small';
      readonly headers: ReadonlyArray<readonly [string, string]>;
    };

/**
 * The UAS side of RFC 4028 9 for a (re-)INVITE or UPDATE: reject intervals below our Min-SE
 * with 422, otherwise answer with Session-Expires (and Require: timer when the UAC supports it).
 */
export function decideUasTimer(
  req: SipRequest,
  policy: TimerPolicy = DEFAULT_TIMER_POLICY,
): UasTimerDecision {
  const asked = parseSessionExpires(getHeader(req, 'Session-Expires'));
  const supported = getTokens(req, 'Supported').some((t) => t.toLowerCase() === 'timer');
  const minSE = Math.max(policy.minSE, MIN_SE_FLOOR);
  if (asked && asked.seconds < minSE) {
    return {
      ok: false,
      status: 422,
      reason: 'Session Interval Too Small',
      headers: [['Min-SE', String(minSE)]],
    };
  }
  if (!asked && !supported) return { ok: true, headers: [] };
  const peerMin = Number(/^\s*(\d{1,10})/.exec(getHeader(req, 'Min-SE') ?? '')?.[1] ?? MIN_SE_FLOOR);
  const seconds = asked?.seconds ?? Math.max(policy.sessionExpires, peerMin, minSE);
  // Without timer support the UAC cannot refresh, so we must (RFC 4028 9).
  const refresher: 'uac' | 'uas' = supported ? (asked?.refresher ?? 'uac') : 'uas';
  const headers: Array<readonly [string, string]> = [
    ['Session-Expires', `${seconds};refresher=${refresher}`],
  ];
  if (supported) headers.push(['Require', 'timer']);
  return { ok: true, timer: { seconds, refresher }, headers };
}

/** What the session timer means for us, from the 2xx that set it (either side). */
export function timerFrom2xx(res: SipMessage): SessionExpires | undefined {
  return parseSessionExpires(getHeader(res, 'Session-Expires'));
}

/**
 * When to act, in ms from the 2xx: the refresher refreshes at half the interval; the other side
 * sends BYE if nothing came by interval minus a margin (RFC 4028 10: min(32 s, interval/3)).
 */
export function timerSchedule(
  timer: SessionExpires,
  weRefresh: boolean,
): { refreshAtMs?: number; expireAtMs: number } {
  const ms = timer.seconds * 1000;
  const expireAtMs = ms - Math.min(32_000, ms / 3);
  return weRefresh ? { refreshAtMs: ms / 2, expireAtMs } : { expireAtMs };
}

/** How many 422s one INVITE of ours answers by asking again (each retry asks for more). */
export const MAX_422_RETRIES = 2;

/**
 * RFC 4028 7.4 (UAC): the request again after a 422, with Min-SE the largest of ours and the 422's
 * and Session-Expires raised to it (the refresher parameter kept), as the next attempt (new branch,
 * CSeq + 1). Undefined when the 422 gives no readable Min-SE, the request asked for no timer, or
 * it asked for that much already: the same request would only draw the same answer.
 */
export function retryAfter422(req: SipRequest, res: SipResponse, branch: string): SipRequest | undefined {
  const theirs = parseMinSE(getHeader(res, 'Min-SE'));
  const asked = parseSessionExpires(getHeader(req, 'Session-Expires'));
  if (theirs === undefined || !asked) return undefined;
  const minSE = Math.max(theirs, parseMinSE(getHeader(req, 'Min-SE')) ?? MIN_SE_FLOOR);
  if (asked.seconds >= minSE) return undefined;
  const refresher = asked.refresher ? `;refresher=${asked.refresher}` : '';
  return nextAttempt(req, branch, {
    drop: (h) => h.name === 'Session-Expires' || h.name === 'Min-SE',
    add: [
      ['Session-Expires', `${minSE}${refresher}`],
      ['Min-SE', String(minSE)],
    ],
  });
}
