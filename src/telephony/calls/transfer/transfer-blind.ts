// Blind transfer (the `transfer_call` node): REFER on the caller's dialog (RFC 3515), then the
// far end's NOTIFYs with message/sipfrag bodies tell how its INVITE to the new destination goes.
//
//   REFER answered ≥ 300          → failed `refer_rejected_<status>` (e.g. refer_rejected_403)
//   REFER unanswered / transport  → failed `refer_timeout`; dialog already gone → `dialog_gone`
//   REFER 2xx with Refer-Sub:false → success (RFC 4488: no NOTIFYs will come)
//   NOTIFY sipfrag 1xx             → answered 200, keep waiting
//   NOTIFY sipfrag 2xx             → success
//   NOTIFY sipfrag ≥ 300           → failed `sip_<status>` (e.g. sip_486)
//   NOTIFY terminated without a final sipfrag → failed `subscription_terminated`
//   no final NOTIFY in time        → failed `notify_timeout`
//   the far end hangs up (BYE)     → success once the REFER was accepted, else `caller_hangup`
//
// Every NOTIFY of the refer event gets 200, also one that arrives before the REFER's 202 (it may
// overtake it on UDP), so the handler is in place before the REFER leaves.
//
// Timing, on the injected clock: 30 s from the 202 for the first NOTIFY (a transferee that
// accepted the REFER says 100 Trying at once); after a 1xx NOTIFY, 120 s for the final one, as the
// new destination may ring that long before the carrier gives up. A late success after a timeout
// is the far end's BYE to a call the workflow already moved on with.
//
// After success we leave the call: the outcome says `byeSent: false`, and the call host, which
// owns the leg, sends the BYE (RFC 5589 4.1) and closes its media unless the far end's BYE came
// first. The leg's in-dialog handler is given back to the call host whatever the outcome.
import { abortError, type TransferOutcome } from '../../../channels/channel.js';
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import { DialogGoneError, type DialogRequests } from '../../sip/dialog-requests.js';
import { parseSipfragStatus } from '../../sip/extensions/refer.js';
import { getHeader } from '../../sip/message/access.js';
import type { SipRequest } from '../../sip/message/types.js';

export const FIRST_NOTIFY_TIMEOUT_MS = 30_000;
export const FINAL_NOTIFY_TIMEOUT_MS = 120_000;

export interface BlindTransferRequest {
  /** The caller's dialog. */
  leg: DialogRequests;
  /** Gives the leg's in-dialog handler back to its owner. */
  restoreRequests: () => void;
  clock: Clock;
  /** The Refer-To URI (transfer-route.ts referToUri). */
  referTo: string;
  /** Who refers (RFC 3892), e.g. `sip:+14155550100@sip.example.com`. */
  referredBy: string;
  signal: AbortSignal;
  /**
   * The far end hung up (or the process hung the call up). Before the REFER was accepted that is
   * `caller_hangup`; after it, it is how many transferees end the call once the new destination
   * took it (BYE before, or instead of, the final NOTIFY), so it counts as success.
   */
  callerGone?: AbortSignal;
  firstNotifyTimeoutMs?: number;
  finalNotifyTimeoutMs?: number;
  /** Progress, for logs (each NOTIFY's sipfrag status, the REFER's answer). */
  onProgress?: (event: { kind: 'refer' | 'notify'; status: number }) => void;
}

function isReferEvent(req: SipRequest): boolean {
  const event = getHeader(req, 'Event');
  return event !== undefined && /^refer\b/i.test(event.trim());
}

function terminated(req: SipRequest): boolean {
  return /^terminated\b/i.test((getHeader(req, 'Subscription-State') ?? '').trim());
}

export function blindTransfer(r: BlindTransferRequest): Promise<TransferOutcome> {
  const { leg, clock, signal } = r;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<TransferOutcome>((resolve, reject) => {
    let done = false;
    let timer: TimerHandle | null = null;

    const arm = (ms: number) => {
      if (timer) clock.clearTimeout(timer);
      timer = clock.setTimeout(() => finish({ status: 'failed', reason: 'notify_timeout' }), ms);
    };
    const finish = (outcome: TransferOutcome | { error: unknown }) => {
      if (done) return;
      done = true;
      if (timer) clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      r.callerGone?.removeEventListener('abort', onGone);
      r.restoreRequests();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome);
    };
    let accepted = false;
    const onAbort = () => finish({ error: abortError(signal) });
    const onGone = () =>
      finish(accepted ? { status: 'success' } : { status: 'failed', reason: 'caller_hangup' });
    signal.addEventListener('abort', onAbort, { once: true });
    r.callerGone?.addEventListener('abort', onGone, { once: true });
    if (r.callerGone?.aborted) onGone();

    leg.onRequest((req, respond) => {
      if (req.method !== 'NOTIFY' || !isReferEvent(req)) return false;
      respond(200, 'OK');
      if (done) return true;
      accepted = true; // a NOTIFY (even one that overtook the 202) means the REFER was taken
      const status = parseSipfragStatus(req);
      if (status !== undefined) r.onProgress?.({ kind: 'notify', status });
      if (status === undefined) {
        if (terminated(req)) finish({ status: 'failed', reason: 'subscription_terminated' });
      } else if (status < 200) {
        arm(r.finalNotifyTimeoutMs ?? FINAL_NOTIFY_TIMEOUT_MS);
      } else if (status < 300) {
        finish({ status: 'success' });
      } else {
        finish({ status: 'failed', reason: `sip_${status}` });
      }
      return true;
    });

    leg
      .sendInDialog('REFER', {
        headers: [
          ['Refer-To', `<${r.referTo}>`],
          ['Referred-By', `<${r.referredBy}>`],
        ],
      })
      .then(
        (res) => {
          r.onProgress?.({ kind: 'refer', status: res.status });
          if (res.status >= 300) return finish({ status: 'failed', reason: `refer_rejected_${res.status}` });
          accepted = true;
          if (/^false$/i.test((getHeader(res, 'Refer-Sub') ?? '').trim()))
            return finish({ status: 'success' });
          // A NOTIFY that overtook the 202 may have armed the longer wait already.
          if (!done && timer === null) arm(r.firstNotifyTimeoutMs ?? FIRST_NOTIFY_TIMEOUT_MS);
        },
        (err: unknown) =>
          finish({
            status: 'failed',
            reason: err instanceof DialogGoneError ? 'dialog_gone' : 'refer_timeout',
          }),
      );
  });
}
