// The call host: the SIP stack's transaction user for calls. Inbound, it hands each new INVITE to
// an InboundCall (inbound-call.ts: admission, then a refusal, or 180 and 200 with our SDP and, on
// the ACK, call.started and the workflow on a phone channel over a LiveCall, live-call.ts).
// Outbound, it is the SipDialer's leg factory (media-sip-leg.ts) and runs the workflow when the
// callee answers. It knows every call up in this process, so shutdown can wait for them and then
// hang them up.
import type { ServerTransaction } from '../../sip/transaction/server.js';
import type { Source } from '../../sip/transport/routing.js';
import { createReply } from '../../sip/message/build.js';
import type { SipRequest } from '../../sip/message/types.js';
import {
  CallRecordsService,
  type CallRecords,
  type RunnableCall,
} from '../../../modules/calls/call-records.service.js';
import type { DrainHooks } from './call-drain.js';
import { InboundCall } from '../inbound/inbound-call.js';
import { LiveCall, type CallHostDeps } from '../live/live-call.js';
import { MediaSipLeg } from '../outbound/media-sip-leg.js';
import type { OutboundCall } from '../outbound/outbound-call.js';
import { SipDialer } from '../outbound/sip-dialer.js';
import { InvitePacer } from '../outbound/invite-pacer.js';

export class CallHost {
  readonly records: CallRecords;
  private readonly h: CallHostDeps & { records: CallRecords };
  readonly dialer: SipDialer;
  /** Connected (or answering) calls by call id. */
  private readonly live = new Map<string, LiveCall>();
  /** Inbound INVITEs being admitted or answered, not yet a LiveCall. */
  private setups = 0;
  /** Live calls not yet over (LiveCall.over): what admission counts of `live`. */
  private up = 0;
  private readonly outLegs = new Map<string, MediaSipLeg>();
  private readonly idleWaiters = new Set<() => void>();
  /** Counters for logs, tests and the benchmark. */
  readonly stats = { invites: 0, rejected: 0, answered: 0, outboundAnswered: 0 };
  /** Told how long each inbound INVITE took from here to its answer (overload control). */
  onSetUp: ((ms: number) => void) | null = null;

  constructor(options: CallHostDeps) {
    this.records = options.records ?? new CallRecordsService(options.deps);
    const invites = new InvitePacer(options.deps.clock);
    this.h = {
      ...options,
      records: this.records,
      pace: options.pace ?? ((host, perSecond) => invites.slot(host, perSecond)),
    };
    this.dialer = new SipDialer(
      options.deps,
      () => this.newOutboundLeg(),
      {
        onAnswered: (run, call) => this.outboundAnswered(run, call),
        onEnded: (callId) => {
          this.outLegs.delete(callId);
          void this.live.get(callId)?.remoteEnded();
          this.changed();
        },
      },
      this.records,
      invites,
    );
  }

  /** What every call of the node shares, with its records and INVITE pacing (a web session's dial legs use it too). */
  get shared(): CallHostDeps & { records: CallRecords } {
    return this.h;
  }

  /** The live call with this id in this process (tests read its RTP counters). */
  find(callId: string): LiveCall | undefined {
    return this.live.get(callId);
  }

  get size(): number {
    return this.live.size + this.setups + this.dialer.size;
  }

  /**
   * Calls that hold this node's capacity now: INVITEs being set up, live calls not yet over and
   * outbound calls dialing or up. Unlike `size` (which the drain waits on), a call stops counting
   * when it ends, not when its teardown (metering, the session's last writes) is done.
   */
  get activeCalls(): number {
    return this.up + this.setups + this.dialer.size;
  }

  /**
   * For SipStackOptions.onRequest: takes every INVITE that opens a dialog. `source` is the packet's
   * own source, which admission checks against the trunk's allowed_ips.
   */
  readonly onRequest = (req: SipRequest, tx: ServerTransaction, source: Source): boolean => {
    if (req.method !== 'INVITE') return false;
    if (req.to.tag !== undefined) {
      // A re-INVITE for a dialog we do not know (the owner routes known ones before this).
      tx.respond(createReply(req, 481, 'Call/Transaction Does Not Exist'));
      return true;
    }
    this.setups++;
    const { clock } = this.h.deps;
    const started = clock.monotonic();
    void new InboundCall(this, req, tx, source).run().finally(() => {
      this.onSetUp?.(clock.monotonic() - started);
      this.setups--;
      this.changed();
    });
    return true;
  };

  /** InboundHost: what inbound calls read. */
  get options(): CallHostDeps {
    return this.h;
  }

  /** Keeps a call as live here until it has closed. */
  register(call: LiveCall): void {
    this.live.set(call.id, call);
    this.up++;
    void call.over.then(() => this.up--);
    void call.closed.then(() => {
      this.live.delete(call.id);
      this.changed();
    });
  }

  private newOutboundLeg(): MediaSipLeg {
    const { deps, stack, local, media } = this.h;
    return new MediaSipLeg({
      stack,
      media,
      localHost: local.host,
      localPort: local.port,
      newId: deps.newId,
      onInvite: (callId, leg) => this.outLegs.set(callId, leg),
      ...(this.h.resolve ? { resolve: this.h.resolve } : {}),
    });
  }

  private outboundAnswered(run: RunnableCall, outbound: OutboundCall): void {
    const leg = this.outLegs.get(run.call.id);
    if (!leg || !leg.uac || !leg.rtp || !leg.local || !leg.origin) {
      outbound.hangup('workflow');
      return;
    }
    this.stats.outboundAnswered++;
    const uac = leg.uac;
    const call = new LiveCall(this.h, {
      call: run.call,
      leg: uac,
      rtp: leg.rtp,
      media: leg.media,
      contact: `<sip:${run.call.from_number}@${this.h.local.host}:${this.h.local.port}>`,
      local: leg.local,
      origin: leg.origin,
      sdp: leg.offer,
      codec: leg.codec,
      ...(leg.timer ? { dialogTimer: leg.timer } : {}),
      uas: false,
      end: async (by) => {
        if (by === 'remote') return;
        if (by === 'lost') leg.lost();
        else outbound.hangup(by);
        await outbound.idle();
      },
    });
    this.register(call);
    void call.run(run);
  }

  private changed(): void {
    if (this.size > 0) return;
    for (const w of [...this.idleWaiters]) w();
    this.idleWaiters.clear();
  }

  /** What CallDrain needs: wait for the calls of this process, then hang up what is left. */
  drainHooks(): DrainHooks {
    return {
      idle: () =>
        this.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.idleWaiters.add(resolve)),
      hangUpAll: async () => {
        const calls = [...this.live.values()];
        await Promise.all(calls.map((c) => c.hangup('shutdown')));
        await this.dialer.closeAll();
        await Promise.all(calls.map((c) => c.closed));
      },
    };
  }
}
