// The Dialer POST /calls hands queued calls to, when this process runs SIP: one OutboundCall per
// call, on a leg from the SIP side's factory, kept here while it is live so DELETE can cancel it
// and shutdown can end what is left. Its nodeId (SWITCHBOARD_NODE_ID) is written on the queued row
// by POST /calls, so this node's sweeps, and only its, end the call if it is left live.
import type { Dialer } from '../../../modules/calls/dialer.js';
import {
  CallRecordsService,
  type CallRecord,
  type CallRecords,
  type RunnableCall,
} from '../../../modules/calls/call-records.service.js';
import { OutboundCall, type OutboundDeps } from './outbound-call.js';
import { InvitePacer } from './invite-pacer.js';
import type { SipLegFactory } from './sip-leg.js';

export interface SipDialerHooks {
  /** An outbound call connected: the media side runs `run` on the call's leg. */
  onAnswered?: (run: RunnableCall, call: OutboundCall) => void;
  /** The call reached its final status (however it ended); its record is stored. */
  onEnded?: (callId: string) => void;
}

export class SipDialer implements Dialer {
  private readonly live = new Map<string, OutboundCall>();
  /** INVITE pacing per carrier host, for carriers that cap the rate (carrier_a). */
  private readonly pacer: InvitePacer;

  /** The node whose process dials: the calls' media lives here. */
  get nodeId(): string {
    return this.deps.config.nodeId;
  }

  constructor(
    private readonly deps: OutboundDeps,
    private readonly newLeg: SipLegFactory,
    private readonly hooks: SipDialerHooks = {},
    private readonly records: CallRecords = new CallRecordsService(deps),
    /** The node's INVITE pacing, shared with the second legs of its live calls. */
    pacer?: InvitePacer,
  ) {
    this.pacer = pacer ?? new InvitePacer(deps.clock);
  }

  dial(call: CallRecord): void {
    const outbound: OutboundCall = new OutboundCall(this.deps, call, this.newLeg(), {
      records: this.records,
      pace: (host, perSecond) => this.pacer.slot(host, perSecond),
      onAnswered: (run) => this.hooks.onAnswered?.(run, outbound),
      onEnded: () => {
        this.live.delete(call.id);
        this.hooks.onEnded?.(call.id);
      },
    });
    this.live.set(call.id, outbound);
    // start() never rejects: a store failure is logged, and the call is left to restart recovery.
    void outbound.start();
  }

  /** INVITEs held back by a carrier's call rate right now. */
  get pacing(): number {
    return this.pacer.waiting;
  }

  /** Outbound calls of this process not yet ended. */
  get size(): number {
    return this.live.size;
  }

  /** The live outbound call of this process, if any. */
  find(callId: string): OutboundCall | undefined {
    return this.live.get(callId);
  }

  /**
   * Cancels a call that has not been answered. One dialled by another process is ended in the
   * store, and false says so: the caller then tells that process (call.cancel on the live-event
   * bus), which sends the CANCEL through cancelLive(); without the message it would send BYE only
   * should the callee still answer (answerCall finds the call ended).
   */
  async cancel(callId: string): Promise<boolean> {
    if (await this.cancelLive(callId)) return true;
    await this.records.cancelUnanswered(callId);
    return false;
  }

  /**
   * CANCEL on the wire for a call ringing from this process; false when it is not live here. Its
   * record may have been ended by another node already: the ending then finds it ended and stores
   * nothing twice (endCall returns null).
   */
  async cancelLive(callId: string): Promise<boolean> {
    const here = this.live.get(callId);
    if (!here) return false;
    if (here.cancel()) await here.idle();
    return true;
  }

  /** Shutdown after the drain limit: CANCEL what still rings, BYE what is connected (`shutdown`). */
  async closeAll(): Promise<void> {
    const calls = [...this.live.values()];
    for (const c of calls) if (!c.cancel('shutdown')) c.hangup('shutdown');
    await Promise.all(calls.map((c) => c.idle()));
  }
}
