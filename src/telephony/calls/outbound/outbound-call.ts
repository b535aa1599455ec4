// One outbound call, from the queued record POST /calls (or a dial node) made to its final status:
// sends the INVITE through the `from` number's trunk with the trunk's credentials, arms the ring
// timeout on the injected clock, and turns each leg event into a call-lifecycle write through the
// outcome table (outbound-outcome.ts). Decisions are taken synchronously as events arrive (so a
// 200 crossing our CANCEL is seen as such); the writes run one after another on a chain, in the
// order the events came, each in its own transaction.
import type { ServiceDeps } from '../../../modules/context.js';
import type { HangupReason } from '../../../modules/calls/call-lifecycle.js';
import { endingOf, SESSION_END_REASON, type EndedBy } from '../../../modules/calls/call-endings.js';
import {
  CallRecordsService,
  type CallRecord,
  type CallRecords,
  type RunnableCall,
} from '../../../modules/calls/call-records.service.js';
import type { CallStatus } from '../../../modules/calls/calls.schema.js';
import type { SessionEndReason } from '../../../shared/session-end-reasons.js';
import { outboundProfile, type OutboundProfile } from '../../../modules/sip-trunks/carrier-profile.js';
import { decryptTrunkPassword } from '../../../modules/sip-trunks/sip-trunks.service.js';
import type { TimerHandle } from '../../../shared/clock.js';
import { outboundOutcome, type OutboundEvent, type OutboundOutcome } from './outbound-outcome.js';
import { trunkTarget, type InviteOptions, type SipLeg } from './sip-leg.js';
import { beforeAnswer } from '../live/call-recording.js';
import { openSpan, SpanKind, type OpenSpan } from '../../../shared/tracing.js';

export type OutboundDeps = Pick<
  ServiceDeps,
  'db' | 'dialect' | 'clock' | 'newId' | 'config' | 'secretBox' | 'logger'
>;

export interface OutboundCallOptions {
  /** Where the call's progress is written (default: the call records service over deps). */
  records?: CallRecords;
  /** Overrides config.ringTimeoutSeconds (a dial node's `ring_timeout_seconds`). */
  ringTimeoutSeconds?: number;
  /** The call connected: run its workflow on the answered leg. */
  onAnswered?: (run: RunnableCall) => void;
  /** The call reached a final status (or was found final already). */
  onEnded?: (call: CallRecord | null) => void;
  /**
   * Waits until an INVITE to `host` may leave at `perSecond` (InvitePacer.slot), for trunks whose
   * carrier caps the rate (carrier-profile.ts); none: INVITEs leave at once.
   */
  pace?: (host: string, perSecond: number) => Promise<void>;
}

type Phase = 'idle' | 'dialing' | 'answered' | 'done';

export class OutboundCall {
  private phase: Phase = 'idle';
  private timer: TimerHandle | null = null;
  /** The INVITE has gone out, so there is something to CANCEL. */
  private sent = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly records: CallRecords;
  /** Aborted by the callee's BYE: stops answering-machine detection waiting on a gone call. */
  private readonly hungUp = new AbortController();
  /**
   * The call's trace, from the dial to its end (under the POST /calls request that queued it, when
   * there is one): the workflow run on the answer hangs under it.
   */
  private readonly span: OpenSpan;

  constructor(
    private readonly deps: OutboundDeps,
    private readonly call: CallRecord,
    private readonly leg: SipLeg,
    private readonly options: OutboundCallOptions = {},
  ) {
    this.records = options.records ?? new CallRecordsService(deps);
    this.span = openSpan('sip INVITE', { 'switchboard.call_id': call.id }, { kind: SpanKind.CLIENT });
  }

  get id(): string {
    return this.call.id;
  }

  /** Where the call stands in this process: dialing until a final answer, then answered or done. */
  get state(): Phase {
    return this.phase;
  }

  /** Resolves once every queued write is stored, including writes queued by those writes. */
  async idle(): Promise<void> {
    for (;;) {
      const chain = this.chain;
      await chain;
      if (chain === this.chain) return;
    }
  }

  /** Looks up the trunk of the `from` number and sends the INVITE; idle() waits for it too. */
  start(): Promise<void> {
    if (this.phase !== 'idle') return this.idle();
    this.phase = 'dialing';
    this.enqueue(() => this.send());
    return this.idle();
  }

  private async send(): Promise<void> {
    const { deps, call } = this;
    const trunk = await this.records.trunkOfCall(call);
    // Cancelled while the trunk was looked up: nothing was sent, the ending is already queued.
    if (this.phase !== 'dialing') return;
    const target = trunk ? trunkTarget(trunk, call.to_number) : null;
    if (!trunk || !target) {
      // The number (and with it the route) went away between POST /calls and the dial.
      this.deps.logger.warn({ call_id: call.id }, 'outbound call has no trunk to leave through');
      this.finish({ status: 'failed', reason: 'carrier_error' });
      return;
    }
    const profile = outboundProfile(trunk.provider);
    if (trunk.health_check === 1 && trunk.health === 'down') {
      // The trunk's OPTIONS pings go unanswered (telephony/trunks): fail now, not after Timer B.
      this.deps.logger.warn({ call_id: call.id, sip_trunk_id: trunk.id }, 'trunk is down; call not sent');
      this.finish({ status: 'failed', reason: 'trunk_unreachable' });
      return;
    }
    if (profile.callsPerSecond !== null && this.options.pace) {
      await this.options.pace(target.host, profile.callsPerSecond);
      // Cancelled while it waited for its slot: nothing was sent, the ending is already queued.
      if (this.phase !== 'dialing') return;
    }
    const seconds = this.options.ringTimeoutSeconds ?? deps.config.ringTimeoutSeconds;
    this.timer = deps.clock.setTimeout(() => this.onRingTimeout(), seconds * 1000);
    this.sent = true;
    this.leg.invite(
      target,
      {
        from: call.from_number,
        auth: { username: trunk.auth_username, password: decryptTrunkPassword(deps, trunk) },
        callId: call.id,
        ...carrierOptions(profile, call.from_number, deps.config.sip.domain),
      },
      {
        provisional: (status) => this.onEvent({ kind: 'provisional', status }),
        final: (status, info) =>
          this.onEvent({ kind: 'final', status, withCredentials: info.withCredentials }),
        bye: () => this.onEvent({ kind: 'bye' }),
        transportError: (err) => {
          if (err) deps.logger.warn({ err, call_id: call.id }, 'outbound leg transport error');
          this.onEvent({ kind: 'transport_error' });
        },
      },
    );
  }

  /**
   * CANCEL before the answer: DELETE of the call or the caller went away (`caller_cancelled`), or
   * the process is shutting down (`shutdown`). False when the call is not ringing here.
   */
  cancel(reason: 'caller_cancelled' | 'shutdown' = 'caller_cancelled'): boolean {
    if (this.phase !== 'dialing') return false;
    if (this.sent) this.leg.cancel();
    if (reason === 'shutdown') this.finish({ status: 'cancelled', reason }, SESSION_END_REASON.shutdown);
    else this.settle(outboundOutcome({ kind: 'cancelled' }));
    return true;
  }

  /** Our side ends a connected call (hangup node, completed transfer, shutdown): BYE and record. */
  hangup(by: Exclude<EndedBy, 'caller' | 'callee' | 'remote'>): boolean {
    if (this.phase !== 'answered') return false;
    this.leg.bye();
    this.finish(endingOf({ status: 'in_progress', direction: 'outbound' }, by), SESSION_END_REASON[by]);
    return true;
  }

  private onRingTimeout(): void {
    this.timer = null;
    if (this.phase !== 'dialing') return;
    this.leg.cancel();
    this.settle(outboundOutcome({ kind: 'ring_timeout' }));
  }

  private onEvent(event: OutboundEvent): void {
    if (this.phase === 'done') {
      // A 2xx that crossed our CANCEL (or arrived after the ring timeout) opened a dialog nobody
      // wants: close it. A 487 or anything else late changes nothing.
      if (event.kind === 'final' && event.status >= 200 && event.status < 300) this.leg.bye();
      return;
    }
    if (this.phase === 'answered') {
      if (event.kind === 'bye') this.hungUp.abort();
      if (event.kind === 'bye') this.settle(outboundOutcome(event));
      else if (event.kind === 'transport_error') {
        // The dialog died under a connected call: it did connect, so it completes, with the cause.
        this.finish({ status: 'completed', reason: 'carrier_error' }, 'failed');
      }
      return;
    }
    const outcome = outboundOutcome(event);
    if (outcome.kind === 'none') return;
    if (outcome.kind === 'progress' && outcome.status === 'ringing') {
      this.enqueue(async () => {
        await this.records.ringing(this.call.id);
      });
      return;
    }
    if (outcome.kind === 'progress') {
      this.phase = 'answered';
      this.clearTimer();
      this.enqueue(async () => {
        // Recording and answering-machine detection (at most a few seconds) come before the answer
        // is recorded, so call.started and the workflow carry answered_by.
        await beforeAnswer(this.deps, this.call, this.leg, this.hungUp.signal);
        const run = await this.records.answered(this.call.id);
        if (run) {
          // The answer arrives on the transport's callback: the workflow is put back under the call's span.
          this.span.within(() => this.options.onAnswered?.(run));
        } else {
          // Ended meanwhile by someone else (a DELETE handled on another node, restart recovery).
          this.phase = 'done';
          this.leg.bye();
        }
      });
      return;
    }
    this.settle(outcome);
  }

  private settle(outcome: OutboundOutcome): void {
    if (outcome.kind === 'end') this.finish(outcome);
  }

  private finish(
    ending: { status: CallStatus; reason: HangupReason },
    sessionReason: SessionEndReason = 'caller_hangup',
  ): void {
    this.phase = 'done';
    this.clearTimer();
    this.span.set({ 'switchboard.call_status': ending.status, 'switchboard.hangup_reason': ending.reason });
    if (ending.status === 'failed') this.span.fail(ending.reason);
    this.span.end();
    this.enqueue(async () => {
      const ended = await this.records.end(this.call.id, { ...ending, sessionReason, meter: true });
      this.options.onEnded?.(ended);
    });
  }

  private clearTimer(): void {
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private enqueue(write: () => Promise<void>): void {
    this.chain = this.chain.then(write).catch((err: unknown) => {
      this.deps.logger.error({ err, call_id: this.call.id }, 'could not record an outbound call transition');
    });
  }
}

/** What the trunk's provider adds to the INVITE (nothing for `generic`). */
function carrierOptions(
  profile: OutboundProfile,
  from: string,
  ourDomain: string,
): Pick<InviteOptions, 'carrier'> {
  const headers = profile.identityHeaders(from, ourDomain);
  if (!profile.codecs && headers.length === 0) return {};
  return { carrier: { ...(profile.codecs ? { codecs: profile.codecs } : {}), headers } };
}
