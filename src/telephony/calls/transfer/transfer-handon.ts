// Hand-on: REFER received (RFC 3515, us as the transferee). The party on a bridged second leg (a
// warm transfer's human once bridged, or the party a `dial` node bridged) hands the caller on to
// someone else, as a contact-centre agent transferring a call does. The second leg is the one we
// dialled for the workflow, so its REFER is taken; a REFER from the main leg's party (the caller,
// or the callee of an outbound call) is declined (`declineRefer`, live-call.ts): that dialog runs
// the workflow, and handing it to a third party would leave the workflow talking to someone else.
//
//   not exactly one readable Refer-To        → 400 Bad Request (RFC 3515 2.4.2)
//   Refer-To with Replaces (attended)        → 603 Decline, Warning: not supported
//   Refer-To we do not dial                  → 603 Decline, Warning (only tel:+E164 through the
//                                              call's trunk, and sip:/sips: with a user part)
//   a hand-on already under way, not bridged → 603 Decline (transfer-warm.ts, second-leg-requests.ts)
//   otherwise 202 Accepted, then NOTIFY (Event: refer;id=<REFER CSeq>, message/sipfrag) with
//   `100 Trying` (subscription active) while the Refer-To target is dialled like a warm transfer's
//   human, without announcement: the call's trunk, the same caller ID, session timers, a ring
//   timeout of the bridge's own; its progress (180 Ringing, 183 Session Progress, each once) is
//   reported the same way; then:
//     answered → the caller's bridge moves to the new party, NOTIFY `200 OK` (terminated), and once
//                that NOTIFY is answered (or after NOTIFY_GRACE_MS) BYE to the referrer, unless it
//                hung up first
//     failed   → NOTIFY with the final status (480 no answer, 486 busy, 603 declined, 404, 403,
//                488, 487 when the caller left, else 503), terminated; the existing bridge stays
// The referrer may hang up any time after its 202 (many phones do at once, a blind transfer): the
// hand-on goes on, the caller hearing silence until the new party answers or fails. NOTIFYs go one
// at a time, each after the last one's answer, so they cannot overtake one another on UDP.
import type { Logger } from '../../../shared/logger.js';
import type { Clock } from '../../../shared/clock.js';
import type { DialogRequests, Respond } from '../../sip/dialog-requests.js';
import { parseReferTo, referNotifyHeaders, sipfrag } from '../../sip/extensions/refer.js';
import { getHeaders } from '../../sip/message/access.js';
import type { SipRequest } from '../../sip/message/types.js';
import { formatUri, type Uri } from '../../sip/message/uri.js';
import type { TransferResult } from './transfer-context.js';
import type { DialTarget } from './transfer-route.js';

/** The provisional responses a hand-on reports to the referrer, with their reason phrases. */
const PROGRESS_REASONS: Record<number, string> = {
  180: 'Ringing',
  181: 'Call Is Being Forwarded',
  182: 'Queued',
  183: 'Session Progress',
};

/** How long the referrer has to answer the final NOTIFY before our BYE goes anyway. */
export const NOTIFY_GRACE_MS = 4000;

/** Answers a REFER we do not take: 603 Decline, with why in a Warning (RFC 3261 20.43, code 399). */
export function declineRefer(respond: Respond, host: string, why: string): void {
  respond(603, 'Decline', [['Warning', `399 ${host} "${why.replace(/["\\]/g, '')}"`]]);
}

/** The Refer-To URI as a destination we may dial: tel:+E164 (separators dropped) or sip:/sips: without URI headers. */
export function dialableUri(uri: Uri): string | null {
  if (uri.kind === 'tel') return `tel:${uri.number.replace(/[-.()\s]/g, '')}`;
  if (uri.kind === 'sip' && uri.user !== undefined) return formatUri({ ...uri, headers: [] });
  return null;
}

type ReferCheck =
  { ok: true; uri: string; target: DialTarget } | { ok: false; status: number; reason: string; why?: string };

/** What to make of a REFER before answering it (the table at the top). */
export function checkRefer(req: SipRequest, route: (uri: string) => DialTarget | null): ReferCheck {
  const refer = getHeaders(req, 'Refer-To').length === 1 ? parseReferTo(req) : undefined;
  if (!refer) return { ok: false, status: 400, reason: 'Bad Request' };
  if (refer.replaces !== undefined) {
    return {
      ok: false,
      status: 603,
      reason: 'Decline',
      why: 'attended transfer (Replaces) is not supported',
    };
  }
  const uri = dialableUri(refer.target.uri);
  const target = uri === null ? null : route(uri);
  if (uri === null || !target) {
    return {
      ok: false,
      status: 603,
      reason: 'Decline',
      why: 'the Refer-To target cannot be dialled from here',
    };
  }
  return { ok: true, uri, target };
}

/** The sipfrag status line a failed hand-on reports, from the warm transfer's failure reason. */
export function sipfragOfFailure(reason: string | undefined): [number, string] {
  const sip = /^sip_([3-6]\d\d)$/.exec(reason ?? '');
  if (sip) {
    const status = Number(sip[1]);
    return [status, status < 500 ? 'Request Failure' : status < 600 ? 'Server Failure' : 'Global Failure'];
  }
  const known: Record<string, [number, string]> = {
    no_answer: [480, 'Temporarily Unavailable'],
    busy: [486, 'Busy Here'],
    declined: [603, 'Decline'],
    invalid_number: [404, 'Not Found'],
    trunk_auth_failed: [403, 'Forbidden'],
    media_failed: [488, 'Not Acceptable Here'],
    caller_hangup: [487, 'Request Terminated'],
    aborted: [487, 'Request Terminated'],
  };
  return known[reason ?? ''] ?? [503, 'Service Unavailable'];
}

/** What the hand-on hears of the new party's leg. */
export interface HandOnDialHooks {
  /** Just before the new leg takes the caller's media. */
  beforeBridge: () => void;
  /** A provisional response while the new party rings. */
  onProvisional: (status: number) => void;
}

export interface HandOnRequest {
  refer: SipRequest;
  respond: Respond;
  /** The referrer's leg: the NOTIFYs go on it. */
  leg: Pick<DialogRequests, 'sendInDialog'>;
  clock: Clock;
  /** Where a Refer-To destination goes (transfer-route.ts warmTarget with the call's trunk). */
  route: (uri: string) => DialTarget | null;
  /** Dials the new party and bridges it to the caller (see HandOnDialHooks). */
  dial: (target: DialTarget, hooks: HandOnDialHooks) => Promise<TransferResult>;
  /** How long the new party may ring; the subscription's expiry covers it. */
  ringTimeoutMs: number;
  /** Our SIP host (Warning agent). */
  host: string;
  /** The new party answered: take the caller off the old bridge (the new one follows at once). */
  handover: () => void;
  /** BYE to the referrer, after the final NOTIFY (a no-op when it hung up already). */
  byeReferrer: () => void;
  logger?: Pick<Logger, 'info' | 'warn'>;
  log?: Record<string, unknown>;
}

/** Runs a hand-on; undefined when the REFER was refused, else how dialling the new party went. */
export async function handOn(h: HandOnRequest): Promise<TransferResult | undefined> {
  const check = checkRefer(h.refer, h.route);
  if (!check.ok) {
    if (check.why) declineRefer(h.respond, h.host, check.why);
    else h.respond(check.status, check.reason);
    h.logger?.info(
      { ...h.log, status: check.status, why: check.why },
      'REFER from the bridged party refused',
    );
    return undefined;
  }
  h.respond(202, 'Accepted');
  const log = { ...h.log, refer_to: check.uri };
  h.logger?.info(log, 'hand-on: REFER accepted, dialling the new party');
  const expires = Math.ceil(h.ringTimeoutMs / 1000) + 30;
  let chain: Promise<void> = Promise.resolve();
  const notify = (status: number, reason: string): Promise<void> =>
    (chain = chain.then(() =>
      h.leg
        .sendInDialog('NOTIFY', {
          headers: referNotifyHeaders(h.refer.cseq.seq, status, expires),
          body: sipfrag(status, reason),
        })
        .then(
          () => undefined,
          () => undefined, // the referrer hung up or went silent: nothing more to tell it
        ),
    ));
  void notify(100, 'Trying');
  // The new party's progress, each kind once: 180 Ringing, 183 Session Progress and the like.
  const told = new Set<number>();
  const ringing = (status: number) => {
    const reason = PROGRESS_REASONS[status];
    if (reason === undefined || told.has(status)) return;
    told.add(status);
    void notify(status, reason);
  };
  let result: TransferResult;
  try {
    result = await h.dial(check.target, { beforeBridge: h.handover, onProvisional: ringing });
  } catch (err) {
    h.logger?.warn({ ...log, err }, 'hand-on: dialling the new party failed');
    result = { status: 'failed', reason: 'aborted' };
  }
  if (result.status !== 'success') {
    const [status, reason] = sipfragOfFailure(result.reason);
    void notify(status, reason);
    h.logger?.info({ ...log, reason: result.reason }, 'hand-on failed; the bridge stays');
    return result;
  }
  // The referrer hears of it first, then gets our BYE: its leg has no media any more.
  let done = false;
  const bye = () => {
    if (done) return;
    done = true;
    h.clock.clearTimeout(grace);
    h.byeReferrer();
  };
  const grace = h.clock.setTimeout(bye, NOTIFY_GRACE_MS);
  void notify(200, 'OK').then(bye);
  h.logger?.info(log, 'hand-on: the caller is bridged to the new party');
  return result;
}
