// The call host: the SIP stack's transaction user for calls. Inbound, it takes each new INVITE
// through admission (inbound-admission.ts) and either refuses it with the status admission chose
// or rings, answers with our SDP on a bound RtpSession and, once the ACK is in, records the answer
// (call.started) and runs the workflow on a phone channel (live-call.ts). Outbound, it is the
// SipDialer's leg factory (media-sip-leg.ts) and runs the workflow when the callee answers. It
// knows every call up in this process, so shutdown can wait for them and then hang them up.
import type { ServerTransaction } from '../sip/transaction/server.js';
import type { Destination } from '../sip/transaction/types.js';
import { decideUasTimer } from '../sip/extensions/session-timer.js';
import { createReply } from '../sip/message/build.js';
import type { SipRequest } from '../sip/message/types.js';
import { answerOffer } from '../sip/sdp/answer.js';
import { UasLeg } from '../sip/uas-leg.js';
import { inTransaction } from '../../store/database.js';
import type { CallTable } from '../../store/schema.js';
import { localAudio, sessionForAnswer } from './call-media-setup.js';
import { CallProgress, finishCall } from './call-progress.js';
import type { DrainHooks } from './call-drain.js';
import { admitInbound } from './inbound-admission.js';
import { inboundInviteOf } from './invite-fields.js';
import { LiveCall, type CallHostDeps, type LocalEnding } from './live-call.js';
import { MediaSipLeg } from './media-sip-leg.js';
import type { OutboundCall } from './outbound-call.js';
import type { RunnableCall } from './phone-session.js';
import { RtpCallMedia } from './rtp-call-media.js';
import { SipDialer } from './sip-dialer.js';

export interface CallHostOptions extends CallHostDeps {
  /** True from SIGTERM on: new INVITEs get 503 (CallDrain.draining). */
  draining?: () => boolean;
}

export class CallHost {
  readonly progress: CallProgress;
  readonly dialer: SipDialer;
  /** Connected (or answering) calls by call id. */
  private readonly live = new Map<string, LiveCall>();
  /** Inbound INVITEs being admitted or answered, not yet a LiveCall. */
  private setups = 0;
  private readonly outLegs = new Map<string, MediaSipLeg>();
  private readonly idleWaiters = new Set<() => void>();
  /** Counters for logs, tests and the benchmark. */
  readonly stats = { invites: 0, rejected: 0, answered: 0, outboundAnswered: 0 };

  constructor(private readonly h: CallHostOptions) {
    this.progress = new CallProgress(h.deps);
    this.dialer = new SipDialer(h.deps, () => this.newOutboundLeg(), {
      onAnswered: (run, call) => this.outboundAnswered(run, call),
      onEnded: (callId) => {
        this.outLegs.delete(callId);
        void this.live.get(callId)?.remoteEnded();
        this.changed();
      },
    });
  }

  /** The live call with this id in this process (tests read its RTP counters). */
  find(callId: string): LiveCall | undefined {
    return this.live.get(callId);
  }

  get size(): number {
    return this.live.size + this.setups + this.dialer.size;
  }

  /** For SipStackOptions.onRequest: takes every INVITE that opens a dialog. */
  readonly onRequest = (req: SipRequest, tx: ServerTransaction, source: Destination): boolean => {
    if (req.method !== 'INVITE') return false;
    if (req.to.tag !== undefined) {
      // A re-INVITE for a dialog we do not know (the owner routes known ones before this).
      tx.respond(createReply(req, 481, 'Call/Transaction Does Not Exist'));
      return true;
    }
    this.setups++;
    void this.inbound(req, tx, source)
      .catch((err: unknown) => this.h.deps.logger.error({ err }, 'inbound call set-up failed'))
      .finally(() => {
        this.setups--;
        this.changed();
      });
    return true;
  };

  private async inbound(req: SipRequest, tx: ServerTransaction, source: Destination): Promise<void> {
    const { deps, stack, local } = this.h;
    this.stats.invites++;
    let callId: string | null = null;
    let call: LiveCall | null = null;
    let callerLeft = false;
    let answered = false;
    let onAcked: (() => void) | null = null;
    const contact = `<sip:switchboard@${local.host}:${local.port}${source.transport === 'UDP' ? '' : `;transport=${source.transport.toLowerCase()}`}>`;
    const leg = new UasLeg(
      { stack, clock: deps.clock, contact, newId: deps.newId, localHost: local.host, localPort: local.port },
      req,
      tx,
      {
        cancelled: () => {
          callerLeft = true;
          if (call) void call.remoteEnded();
        },
        bye: () => {
          callerLeft = true;
          if (call) void call.remoteEnded();
        },
        ackTimeout: () => void call?.hangup('lost'),
        acked: () => onAcked?.(),
      },
    );

    // Media first, so an INVITE we could never carry is refused (488) without a record.
    const offer = new TextDecoder().decode(req.body);
    if (offer.trim() === '')
      return this.refuse(leg, 488, 'Not Acceptable Here', 'no SDP offer (late offer is not supported)');
    const probe = answerOffer(offer, localAudio(this.h.media, 9), {
      sessionId: '0',
      sessionVersion: 1,
      address: this.h.media.address,
    });
    if (!probe.ok) return this.refuse(leg, probe.status, probe.reason, probe.why);
    const timer = decideUasTimer(req);
    if (!timer.ok)
      return this.refuse(leg, timer.status, timer.reason, 'session interval too small', [...timer.headers]);

    const admission = await admitInbound(
      { ...deps, ...(this.h.draining ? { draining: this.h.draining } : {}) },
      inboundInviteOf(req, source.host),
    );
    if (admission.kind === 'reject') {
      return this.refuse(leg, admission.status, admission.reason, admission.why);
    }
    callId = admission.call.id;
    if (callerLeft) {
      await this.progress.ended(callId, 'remote');
      return;
    }
    const media = new RtpCallMedia(deps.clock);
    let rtp;
    try {
      rtp = await sessionForAnswer(this.h.media, probe.audio, media.rtpCallbacks);
    } catch (err) {
      deps.logger.error({ err, call_id: callId }, 'no media for an inbound call');
      leg.reject(503, 'Service Unavailable');
      await this.failed(admission.call, false);
      return;
    }
    media.attach(rtp);
    const ours = localAudio(this.h.media, rtp.localPort);
    const origin = { sessionId: String(deps.clock.now()), sessionVersion: 1, address: this.h.media.address };
    const answer = answerOffer(offer, ours, origin);
    if (!answer.ok) throw new Error('the offer stopped being acceptable');
    const id = callId;
    call = new LiveCall(this.h, {
      call: admission.call,
      leg,
      rtp,
      media,
      contact,
      local: ours,
      origin,
      sdp: answer.sdp,
      codec: { name: answer.audio.codec.name, pt: answer.audio.codec.pt },
      ...(timer.timer ? { timer: timer.timer } : {}),
      uas: true,
      end: (by) => this.endInbound(leg, id, by, () => answered),
    });
    this.live.set(id, call);
    void call.closed.then(() => {
      this.live.delete(id);
      this.changed();
    });
    // The caller hung up while the port was bound.
    if (callerLeft) return void call.remoteEnded();
    leg.ring(180);
    leg.answer(answer.sdp, [...timer.headers]);
    rtp.start();
    this.stats.answered++;
    const live = call;
    // The ACK makes the call: call.started, the session active, the workflow running.
    onAcked = () => {
      if (answered) return;
      answered = true;
      void this.progress
        .answered(id)
        .then((run) => (run ? live.run(run) : live.hangup('workflow')))
        .catch((err: unknown) => deps.logger.error({ err, call_id: id }, 'could not start an answered call'));
    };
    if (leg.acked) onAcked();
  }

  private refuse(
    leg: UasLeg,
    status: number,
    reason: string,
    why: string,
    headers: (readonly [string, string])[] = [],
  ): void {
    this.stats.rejected++;
    this.h.deps.logger.info({ status, why }, 'inbound INVITE refused');
    leg.reject(status, reason, headers);
  }

  private async endInbound(
    leg: UasLeg,
    callId: string,
    by: LocalEnding | 'remote',
    answered: () => boolean,
  ): Promise<void> {
    if (by !== 'remote') leg.bye();
    if (by === 'lost') {
      const row = await this.h.deps.db
        .selectFrom('calls')
        .selectAll()
        .where('id', '=', callId)
        .executeTakeFirst();
      if (row) await this.failed(row, answered());
      return;
    }
    await this.progress.ended(callId, by);
  }

  /** The dialog or the media failed under the call: completed (connected) or failed, carrier_error. */
  private async failed(call: CallTable, connected: boolean): Promise<void> {
    await inTransaction(this.h.deps.db, (trx) =>
      finishCall(trx, this.h.deps, call.id, {
        status: connected ? 'completed' : 'failed',
        reason: 'carrier_error',
        sessionReason: 'failed',
        meter: true,
      }),
    );
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
      uas: false,
      end: async (by) => {
        if (by === 'remote') return;
        if (by === 'lost') leg.lost();
        else outbound.hangup(by);
        await outbound.idle();
      },
    });
    const id = run.call.id;
    this.live.set(id, call);
    void call.closed.then(() => {
      this.live.delete(id);
      this.changed();
    });
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
