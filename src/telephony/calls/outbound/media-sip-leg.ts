// The SipLeg the outbound state machine dials through (sip-leg.ts), over the stack's UacLeg with
// media: binds an RtpSession first, offers it (our codec preference, RFC 4733 events), reads the
// answer into the session and starts it on the 2xx. A 2xx whose SDP we cannot use (no answer,
// no format we offered) is hung up at once and reported as 488, so the call ends failed /
// carrier_error instead of running a workflow nobody can hear. Media is closed whenever the leg
// ends without a call (a final non-2xx, a transport error, our BYE). Through a `tls` trunk the offer
// is RTP/SAVP with fresh SDES keys, and an answer without a usable key is one we cannot use.
//
// The INVITE asks for session timers (RFC 4028: Supported: timer, Session-Expires 1800, Min-SE
// 90; session-refresh.ts; a 422 is answered by UacLeg asking again with the callee's Min-SE) and
// `timer` holds what the callee's 2xx made of it, which the call's LiveCall then runs (refreshing
// by UPDATE when the 2xx leaves it to us).
import type { RtpSession } from '../../media/rtp-session.js';
import { buildOffer, readAnswer } from '../../sip/sdp/offer.js';
import type { LocalAudio, Origin } from '../../sip/sdp/session.js';
import type { SipStack } from '../../sip/stack.js';
import { UacLeg, type UacLegOptions } from '../../sip/uac-leg.js';
import type { CodecName } from '../../sip/sdp/codecs.js';
import {
  applyAudio,
  codecsOf,
  localAudio,
  offerCodec,
  sdesKeys,
  sessionForOffer,
  type MediaEnv,
} from '../call-media/call-media-setup.js';
import { RtpCallMedia } from '../call-media/rtp-call-media.js';
import { timerInviteHeaders, timerOfOur2xx, type DialogTimerState } from '../live/session-refresh.js';
import type { InviteOptions, SipLeg, SipLegEvents, SipTarget } from './sip-leg.js';

export interface MediaSipLegOptions {
  stack: SipStack;
  media: MediaEnv;
  /** Our SIP address as the trunk sees it (Via, Contact). */
  localHost: string;
  localPort: number;
  newId: () => string;
  /** The INVITE went out for call `callId` (the call host keeps the leg to run the call on it). */
  onInvite?: (callId: string, leg: MediaSipLeg) => void;
  /** Where a termination host's INVITEs go (UacLegOptions.resolve); none: the host as it is. */
  resolve?: UacLegOptions['resolve'];
}

export class MediaSipLeg implements SipLeg {
  readonly media: RtpCallMedia;
  rtp: RtpSession | null = null;
  uac: UacLeg | null = null;
  local: LocalAudio | null = null;
  origin: Origin | null = null;
  offer = '';
  /** The format the RtpSession sends: our first preference (SIP_CODECS) until the answer picks one. */
  codec: { name: string; pt: number };
  /** The session timer the callee's 2xx set (none when it did not take part). */
  timer: DialogTimerState | undefined;
  private events: SipLegEvents | null = null;
  private cancelled = false;
  private answerOk = false;
  private mediaClosed = false;

  constructor(private readonly o: MediaSipLegOptions) {
    this.media = new RtpCallMedia(o.media.clock);
    this.codec = offerCodec(o.media);
  }

  invite(target: SipTarget, options: InviteOptions, events: SipLegEvents): void {
    this.events = events;
    this.start(target, options, events).catch((err: unknown) => {
      void this.closeMedia();
      events.transportError(err instanceof Error ? err : new Error(String(err)));
    });
  }

  private async start(target: SipTarget, options: InviteOptions, events: SipLegEvents): Promise<void> {
    const keys = target.transport === 'tls' ? sdesKeys() : undefined;
    const env = carrierMedia(this.o.media, options.carrier?.codecs);
    this.codec = offerCodec(env);
    const rtp = await sessionForOffer(env, this.media.rtpCallbacks, keys !== undefined);
    this.rtp = rtp;
    this.media.attach(rtp);
    // Cancelled (DELETE, shutdown) while the port was bound: nothing went out, nothing to report.
    if (this.cancelled) return this.closeMedia();
    this.local = localAudio(env, rtp.localPort, keys);
    this.origin = {
      sessionId: String(this.o.media.clock.now()),
      sessionVersion: 1,
      address: this.o.media.address,
    };
    this.offer = buildOffer(this.local, this.origin);
    const uac = new UacLeg({
      stack: this.o.stack,
      inviteHeaders: [...timerInviteHeaders(), ...(options.carrier?.headers ?? [])],
      on2xx: (res) => (this.timer = timerOfOur2xx(res)),
      localHost: this.o.localHost,
      localPort: this.o.localPort,
      newId: this.o.newId,
      offer: () => this.offer,
      onAnswer: (sdp) => this.answered(sdp),
      ...(this.o.resolve ? { resolve: this.o.resolve } : {}),
    });
    this.uac = uac;
    this.o.onInvite?.(options.callId, this);
    uac.invite(target, options, {
      provisional: (status) => events.provisional(status),
      final: (status, info) => {
        if (status >= 200 && status < 300) {
          if (!this.answerOk) {
            uac.bye();
            void this.closeMedia();
            return events.final(488, info);
          }
          rtp.start();
        } else {
          void this.closeMedia();
        }
        events.final(status, info);
      },
      bye: () => events.bye(),
      transportError: (err) => {
        void this.closeMedia();
        events.transportError(err);
      },
    });
  }

  private answered(sdp: string): void {
    if (!this.local || !this.rtp) return;
    const reading = readAnswer(sdp, this.local);
    if (!reading.ok) return;
    applyAudio(this.rtp, reading.audio, this.codec);
    this.codec = { name: reading.audio.codec.name, pt: reading.audio.codec.pt };
    this.answerOk = true;
  }

  cancel(): void {
    this.cancelled = true;
    this.uac?.cancel();
  }

  bye(): void {
    this.uac?.bye();
    void this.closeMedia();
  }

  /** The dialog died under the call (session timer): BYE and report it as a transport failure. */
  lost(): void {
    this.uac?.bye();
    void this.closeMedia();
    this.events?.transportError(new Error('the dialog was lost'));
  }

  private async closeMedia(): Promise<void> {
    if (this.mediaClosed) return;
    this.mediaClosed = true;
    this.media.close();
    await this.rtp?.close().catch(() => undefined);
  }
}

/**
 * The media environment of a leg through a trunk whose carrier carries only some codecs: our
 * preference (SIP_CODECS) narrowed to them, in our order; all of theirs when ours names none of them.
 */
export function carrierMedia(env: MediaEnv, codecs: readonly string[] | undefined): MediaEnv {
  if (!codecs || codecs.length === 0) return env;
  const ours = codecsOf(env).filter((c) => codecs.includes(c));
  return { ...env, codecs: ours.length > 0 ? ours : (codecs as CodecName[]) };
}
