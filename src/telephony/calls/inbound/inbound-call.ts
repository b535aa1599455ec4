// One inbound INVITE on its way to becoming a call (the call host's inbound half): the offer is
// checked, admission decides, a refusal gets its status; an admitted call gets an RTP port, 180,
// 200 with our SDP answer, and on the ACK its answer is recorded (call.started) and the workflow
// runs on a LiveCall. The caller's CANCEL or BYE at any point ends it; a failure of the store or
// the sockets answers 500 and ends a recorded call failed, so no INVITE is left unanswered.
//
// Late offer (an INVITE without SDP, RFC 3261 13.2.1, RFC 3264): our 200 carries our offer (the
// codec preference and telephone-event), resent until the ACK like any 2xx, and the ACK carries
// the caller's answer, which is applied to the RTP session before media starts and the call is
// recorded answered. An ACK without a usable answer (none, or no format we offered) means there is
// no media to run a workflow on: BYE, and the call ends failed / carrier_error, never connected.
import { decideUasTimer } from '../../sip/extensions/session-timer.js';
import type { SipRequest } from '../../sip/message/types.js';
import { answerOffer, readOffer, type ReadOffer } from '../../sip/sdp/answer.js';
import { buildOffer, readAnswer } from '../../sip/sdp/offer.js';
import type { SdesKey } from '../../sip/sdp/crypto.js';
import type { LocalAudio, Origin } from '../../sip/sdp/session.js';
import type { RtpSession } from '../../media/rtp-session.js';
import type { ServerTransaction } from '../../sip/transaction/server.js';
import type { Source } from '../../sip/transport/routing.js';
import { UasLeg } from '../../sip/uas-leg.js';
import {
  applyAudio,
  localAudio,
  offerCodec,
  sdesKeys,
  sessionForAnswer,
  sessionForOffer,
} from '../call-media/call-media-setup.js';
import type { CallRecords } from '../../../modules/calls/call-records.service.js';
import { inboundInviteOf } from './invite-fields.js';
import { LiveCall, type CallHostDeps, type LiveCallOptions, type LocalEnding } from '../live/live-call.js';
import { RtpCallMedia } from '../call-media/rtp-call-media.js';
import { openSpan, SpanKind, type OpenSpan } from '../../../shared/tracing.js';

/** What an inbound call needs from the call host. */
export interface InboundHost {
  options: CallHostDeps;
  records: CallRecords;
  /** Keeps the call as live until it is closed. */
  register(call: LiveCall): void;
  stats: { invites: number; rejected: number; answered: number };
}

export class InboundCall {
  private readonly leg: UasLeg;
  private readonly contact: string;
  private callId: string | null = null;
  private call: LiveCall | null = null;
  private callerLeft = false;
  private answered = false;
  /**
   * The answer's write (in_progress, call.started), from the ACK until it is stored. An ending
   * waits for it: read before the answer committed, the end would find the status changed under
   * it and write nothing (the call left in_progress), or end as never answered a call that was.
   */
  private answering: Promise<unknown> | null = null;
  /** Runs on the caller's (first) ACK: the call is up. */
  private connect: ((ack: SipRequest) => void) | null = null;
  /** The call's trace, from the INVITE to its end: admission, then the workflow's nodes, under it. */
  private span: OpenSpan = openSpan('sip INVITE', {}, { kind: SpanKind.SERVER });

  constructor(
    private readonly host: InboundHost,
    private readonly req: SipRequest,
    tx: ServerTransaction,
    /** Where the INVITE's packet came from (the stack's, not the Via's): allowed_ips reads it. */
    private readonly source: Source,
  ) {
    const { deps, stack, local } = host.options;
    const transport = source.transport === 'UDP' ? '' : `;transport=${source.transport.toLowerCase()}`;
    this.contact = `<sip:switchboard@${local.host}:${local.port}${transport}>`;
    const gone = () => {
      this.callerLeft = true;
      if (this.call) void this.call.remoteEnded();
    };
    this.leg = new UasLeg(
      {
        stack,
        clock: deps.clock,
        contact: this.contact,
        newId: deps.newId,
        localHost: local.host,
        localPort: local.port,
      },
      req,
      tx,
      {
        cancelled: gone,
        bye: gone,
        ackTimeout: () => void this.call?.hangup('lost'),
        acked: (ack) => this.connect?.(ack),
      },
    );
  }

  /** Never rejects: failures are logged and answered 500. */
  async run(): Promise<void> {
    const { deps } = this.host.options;
    this.host.stats.invites++;
    this.span.set({
      'sip.call_id': this.req.callId,
      'network.peer.address': this.source.address,
      'network.transport': this.source.transport,
    });
    try {
      await this.span.within(() => this.setUp());
    } catch (err) {
      deps.logger.error({ err, call_id: this.callId }, 'inbound call set-up failed');
      this.leg.reject(500, 'Server Internal Error');
      this.span.fail(err);
      this.span.end();
      if (this.callId !== null && this.call === null) await this.failed(false).catch(() => undefined);
    }
  }

  private refuse(
    status: number,
    reason: string,
    why: string,
    headers: (readonly [string, string])[] = [],
  ): void {
    this.host.stats.rejected++;
    this.host.options.deps.logger.info({ status, why }, 'inbound INVITE refused');
    this.leg.reject(status, reason, headers);
    this.span.set({ 'sip.response.status_code': status, 'switchboard.refusal': why });
    this.span.end();
  }

  private async setUp(): Promise<void> {
    const { options, records } = this.host;
    const { deps } = options;
    const checked = this.checkOffer();
    if (!checked) return;
    const { offer, late, keys, probe, timer } = checked;

    // An INVITE on a trunk's registered Contact belongs to that trunk (trunks/trunk-manager.ts).
    const trunkId = options.trunkOfRequest?.(this.req, this.source);
    const invite = inboundInviteOf(this.req, this.source.address, trunkId);
    if (probe && !probe.ok) invite.unusableOffer = probe.why;
    const admission = await records.admit(invite, options.draining);
    if (admission.kind === 'reject') {
      const warning = `399 ${options.local.host} "${admission.why}"`;
      const headers: [string, string][] = admission.status === 488 ? [['Warning', warning]] : [];
      return this.refuse(admission.status, admission.reason, admission.why, headers);
    }
    if (probe && !probe.ok) throw new Error('an unusable offer was admitted');
    const id = admission.call.id;
    this.callId = id;
    this.span.set({ 'switchboard.call_id': id });
    if (this.callerLeft) {
      this.span.end();
      await records.ended(id, 'remote');
      return;
    }
    const bound = await this.bindMedia(id, probe, keys);
    if (!bound) return;
    const { media, rtp } = bound;
    const ours = localAudio(options.media, rtp.localPort, keys);
    const origin = { sessionId: String(deps.clock.now()), sessionVersion: 1, address: options.media.address };
    const { sdp, codec } = offer ? ourAnswer(offer, ours, origin) : this.ourOffer(ours, origin);
    // Kept: a late offer's answer (in the ACK) changes the codec the call runs on, and LiveCall
    // answers later re-INVITEs from these options.
    const callOptions: LiveCallOptions = {
      call: admission.call,
      leg: this.leg,
      rtp,
      media,
      contact: this.contact,
      local: ours,
      origin,
      sdp,
      codec,
      ...(timer.timer ? { timer: timer.timer } : {}),
      uas: true,
      end: (by) => this.end(by),
    };
    const call = new LiveCall(options, callOptions);
    this.call = call;
    this.host.register(call);
    // The caller hung up while the port was bound.
    if (this.callerLeft) return void call.remoteEnded();
    // The ACK makes the call: call.started, the session active, the workflow running.
    // The ACK arrives on the transport's callback, outside the INVITE's span: the workflow it starts
    // is put back under it.
    this.connect = (ack) => this.span.within(() => this.connected(ack, call, callOptions, late));
    this.leg.ring(180);
    this.leg.answer(sdp, [...timer.headers]);
    // With a late offer media starts on the ACK, once the answer says where it goes.
    if (!late) rtp.start();
    this.host.stats.answered++;
  }

  /**
   * The offer and the session timer, before admission: an unreadable offer (400) and a session
   * interval too small (422) are refused here; an offer with nothing we can carry goes to admission,
   * which refuses it 488 once it knows the number. Without an offer (a late offer) there is nothing
   * to refuse: we make the offer ourselves. Undefined when refused.
   */
  private checkOffer() {
    const { options } = this.host;
    const text = new TextDecoder().decode(this.req.body);
    const late = text.trim() === '';
    // Read once: probed here, answered after admission with the call's port and origin.
    const offer = late ? null : readOffer(text);
    // SRTP keys only when the INVITE came over TLS: over UDP or TCP an RTP/SAVP offer is refused.
    const keys = this.source.transport === 'TLS' ? sdesKeys() : undefined;
    const probe = !offer
      ? null
      : answerOffer(offer, localAudio(options.media, 9, keys), {
          sessionId: '0',
          sessionVersion: 1,
          address: options.media.address,
        });
    // An offer with no format we can carry is refused (488) once admission knows the number, so a
    // registered number's refusal is recorded; an unreadable one (400) is refused here.
    if (probe && !probe.ok && probe.status !== 488) {
      const warning = `399 ${options.local.host} "${probe.why}"`;
      return this.refuse(probe.status, probe.reason, probe.why, [['Warning', warning]]);
    }
    const timer = decideUasTimer(this.req);
    if (!timer.ok) {
      return this.refuse(timer.status, timer.reason, 'session interval too small', [...timer.headers]);
    }
    return { offer, late, keys, probe, timer };
  }

  /** The call's RTP session for the offer's format (or ours, late); none free: 503 and a failed call. */
  private async bindMedia(
    id: string,
    probe: Extract<ReturnType<typeof answerOffer>, { ok: true }> | null,
    keys: SdesKey[] | undefined,
  ): Promise<{ media: RtpCallMedia; rtp: RtpSession } | undefined> {
    const { deps, media: env } = this.host.options;
    const media = new RtpCallMedia(deps.clock);
    let rtp: RtpSession;
    try {
      rtp = probe
        ? await sessionForAnswer(env, probe.audio, media.rtpCallbacks)
        : await sessionForOffer(env, media.rtpCallbacks, keys !== undefined);
    } catch (err) {
      deps.logger.error({ err, call_id: id }, 'no RTP port for an inbound call');
      this.leg.reject(503, 'Service Unavailable');
      await this.failed(false);
      return undefined;
    }
    media.attach(rtp);
    return { media, rtp };
  }

  /** A late offer: ours, in the 200. */
  private ourOffer(ours: LocalAudio, origin: Origin): { sdp: string; codec: { name: string; pt: number } } {
    return { sdp: buildOffer(ours, origin), codec: offerCodec(this.host.options.media) };
  }

  /** The caller's (first) ACK; a late offer's answer is in it. */
  private connected(ack: SipRequest, call: LiveCall, callOptions: LiveCallOptions, late: boolean): void {
    const { deps } = this.host.options;
    const id = call.id;
    if (this.answered) return;
    if (late) {
      const reading = readAnswer(new TextDecoder().decode(ack.body), callOptions.local);
      if (!reading.ok) {
        deps.logger.info({ call_id: id, why: reading.why }, 'late offer: the ACK carried no usable answer');
        void call.hangup('lost');
        return;
      }
      applyAudio(callOptions.rtp, reading.audio, callOptions.codec);
      callOptions.codec = { name: reading.audio.codec.name, pt: reading.audio.codec.pt };
      callOptions.rtp.start();
    }
    this.answered = true;
    const answering = this.host.records.answered(id);
    // Only the write is waited for by an ending: the workflow that follows may itself end the call.
    this.answering = answering.catch(() => undefined);
    void answering
      .then((run) => (run ? call.run(run) : call.hangup('workflow')))
      .catch((err: unknown) => deps.logger.error({ err, call_id: id }, 'could not start an answered call'));
  }

  /** LiveCall's `end`: BYE for our endings, and the record. */
  private async end(by: LocalEnding | 'remote'): Promise<void> {
    this.span.set({ 'switchboard.ended_by': by });
    this.span.end();
    if (by !== 'remote') this.leg.bye();
    // The caller's BYE can come on the heels of its ACK (both queued while the node was busy).
    await this.answering;
    if (by === 'lost') return this.failed(this.answered);
    await this.host.records.ended(this.callId!, by);
  }

  /** The dialog or the media failed: completed (connected) or failed, carrier_error. */
  private async failed(connected: boolean): Promise<void> {
    this.span.fail('carrier_error');
    this.span.end();
    await this.host.records.end(this.callId!, {
      status: connected ? 'completed' : 'failed',
      reason: 'carrier_error',
      sessionReason: 'failed',
      meter: true,
    });
  }
}

/** Our answer to the caller's offer (checked acceptable before admission). */
function ourAnswer(
  offer: ReadOffer,
  ours: LocalAudio,
  origin: Origin,
): { sdp: string; codec: { name: string; pt: number } } {
  const answer = answerOffer(offer, ours, origin);
  if (!answer.ok) throw new Error('the offer stopped being acceptable');
  return { sdp: answer.sdp, codec: { name: answer.audio.codec.name, pt: answer.audio.codec.pt } };
}
