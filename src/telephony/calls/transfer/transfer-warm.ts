// Warm transfer (the `transfer_to_human` node): a second leg to the human, the announcement played
// to the human only, then the two calls' media bridged until one side hangs up.
//
//   ringing     INVITE through the trunk (transfer-route.ts warmTarget), our number as caller ID,
//               G.711 offered in SIP_CODECS's order (the human is on the PSTN behind the trunk;
//               call-media-setup.ts bridgedLegCodecs). The workflow's own playback has finished
//               (the node waits). From the first 18x the caller hears ringback
//               (call-media/ringback.ts, SIP_RINGBACK) in their own codec; when an 18x carries SDP
//               (a 183 Session Progress: the far end's early media, RFC 3960) the human leg's media
//               is set up from it, receive-only, and from its first packet the caller hears that
//               instead of the tone. Both stop on the answer and on any failure (the queued rest
//               is dropped at once). A 2xx without SDP takes the early SDP as the answer.
//   detecting   (machineDetection only) the human answered: their first seconds go through
//               answering-machine detection (at most about 4 s; the caller still hears the tone,
//               never the leg); a machine → failed `machine` (BYE sent), else on to announcing.
//   announcing  the human answered: the caller's media is suspended (the phone channel neither
//               plays nor listens), the announcement is synthesised into the human's leg only.
//   bridged     MediaBridge joins the caller's RtpSession and the human's; the transfer resolves
//               `success` with `bridged`, a promise that settles when the bridge is over:
//                 human hangs up (BYE)   → bridge stopped, human media closed; the call host then
//                                          ends the call (BYE to the caller) as `transfer`;
//                 caller hangs up        → (callerGone) BYE to the human, bridge stopped.
//
// Outcomes before the bridge, all `failed` with the caller's call still running the workflow
// (media resumed, the node leaves by `failed`):
//   ring timeout (options.timeoutMs, default 30 s) → no_answer (CANCEL sent)
//   408 / 480 / 487 → no_answer       486 / 600 → busy        603 → declined
//   404 / 484 → invalid_number        401 / 403 / 407 (after our credentials) → trunk_auth_failed
//   other ≥ 300 → sip_<status>        timer B / transport error → leg_failed
//   answer SDP unusable → media_failed (BYE sent)   human hangs up during the announcement → human_hangup
//   no trunk for a tel: destination, or an unreadable one → no_route
// The caller hanging up before the bridge: CANCEL or BYE to the human, `failed` / caller_hangup.
// The node's signal aborting before the bridge: the same clean-up, then a rejection with its reason.
//
// The human leg is a call row of its own, opened and moved by the caller of this machine
// (transfer.ts secondLeg, through `onProvisional` and `onAnswered`; modules/calls/dial-legs.ts).
// The caller's row stays `in_progress` through the bridge and ends `completed` with hangup_reason
// `transfer` when the bridge is over (so its duration_seconds and voice_minutes cover the bridged
// talk too). The human leg's SIP Call-ID and outcome are logged with the caller's call id.
//
// The human's leg answers its far end's re-INVITE and UPDATE (session-timer refreshes, hold, a new
// media address) from our SDP, and its SIP INFO digits cross to the caller as RFC 4733 events. The
// caller's presses cross the other way, SIP INFO ones too (`callerDigits`: the call host's media
// hands them over while it is suspended; without it the RFC 4733 ones seen on the caller's RTP).
//
// Session timers (RFC 4028) on the human's leg: our INVITE asks for them (session-refresh.ts
// timerInviteHeaders: Supported: timer, Session-Expires 1800, Min-SE 90; a 422 is retried with the
// far end's Min-SE). When the human's 2xx, or a later
// refresh of theirs, makes us the refresher we send UPDATE at half the interval; when they are and
// none comes in time, or our refresh fails, the human's leg is dead: BYE, and the bridge ends as if
// the human had hung up (before the bridge: `leg_failed`).
//
// Hand-on: a bridged party's REFER dials the next party as another warm transfer of this call
// (transfer-handon.ts); on its answer the bridge moves there and `bridged` settles with the new one.
//
// The announcement's characters are reported through `meterTts` when it starts (the call meters
// them as tts_characters with the phone channel's, whether or not it was heard to the end).
//
// `WarmTransfer` below is this table as a state machine (ringing → announcing → bridged → over, or
// → failed before the bridge), one method per event of the human's leg, the caller and the node.
// A dial node's leg is the same machine without the announcement (transfer.ts, the dialler).
import { randomBytes } from 'node:crypto';
import type { CallMedia } from '../../../channels/call-media.js';
import { abortError } from '../../../channels/channel.js';
import type { TtsProvider } from '../../../providers/tts/tts.types.js';
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/logger.js';
import { playSpeech } from '../../../channels/voice/playback.js';
import {
  MediaBridge,
  MediaTap,
  rtpBridgeEnd,
  tapSession,
  withDigitSource,
  type SessionTap,
} from '../../media/bridge.js';
import { createCodec } from '../../../audio/codecs/registry.js';
import type { RtpPortAllocator } from '../../media/port-allocator.js';
import { RtpSession } from '../../media/rtp-session.js';
import type { SharedPacer } from '../../media/shared-pacer.js';
import { DEFAULT_DYNAMIC_PTS, type CodecName } from '../../sip/sdp/codecs.js';
import { buildOffer, readAnswer } from '../../sip/sdp/offer.js';
import type { LocalAudio, NegotiatedAudio, Origin } from '../../sip/sdp/session.js';
import type { Respond } from '../../sip/dialog-requests.js';
import type { SipRequest } from '../../sip/message/types.js';
import type { SipStack } from '../../sip/stack.js';
import { UacLeg, type UacLegOptions } from '../../sip/uac-leg.js';
import { SecondLegRequests } from './second-leg-requests.js';
import { listenForAnsweredBy } from '../live/call-recording.js';
import type { AnsweredBy } from '../../../audio/amd.js';
import {
  DialogTimer,
  timerInviteHeaders,
  timerOfOur2xx,
  type DialogTimerState,
} from '../live/session-refresh.js';
import { bridgedLegCodecs, offerCodec, sdesKeys } from '../call-media/call-media-setup.js';
import { RingbackTone, type RingbackCadence, type ToneSink } from '../call-media/ringback.js';
import type { DigestCredentials, SipTarget } from '../outbound/sip-leg.js';
import type { TransferResult } from './transfer-context.js';
import { declineRefer, handOn, type HandOnDialHooks } from './transfer-handon.js';
import type { DialTarget } from './transfer-route.js';

export const DEFAULT_RING_TIMEOUT_MS = 30_000;

export interface Announcer {
  tts: TtsProvider;
  voice: string;
  language?: string;
}

export interface WarmTransferRequest {
  stack: SipStack;
  /** Our SIP address (Via, Contact), also where the human's RTP binds and what our SDP says. */
  local: { host: string; port: number };
  clock: Clock;
  newId: () => string;
  ports: RtpPortAllocator;
  pacer?: SharedPacer;
  target: SipTarget;
  auth: DigestCredentials;
  /** Caller ID of the new leg (our registered number). */
  from: string;
  /** RFC 3263: the destinations of a target host given by name (NAPTR, SRV, A/AAAA). */
  resolve?: UacLegOptions['resolve'];
  /** Extra INVITE header fields the trunk's carrier asks for (carrier_a: P-Asserted-Identity). */
  carrierHeaders?: readonly (readonly [string, string])[];
  /** The call's id, for logs. */
  callId: string;
  ringTimeoutMs?: number;
  announcement?: string;
  announcer?: Announcer;
  /** Our codec preference (SIP_CODECS); the leg offers its G.711 part. Default PCMU, PCMA. */
  codecs?: readonly CodecName[];
  /** The caller's side (a call's RTP session, or a browser's line), bridged to the human once the announcement is over. */
  caller: CallerSide;
  suspendMedia: () => void;
  resumeMedia: () => void;
  /** Characters of the announcement sent to TTS, for the call's tts_characters. */
  meterTts?: (characters: number) => void;
  /** The caller's presses, RFC 4733 and SIP INFO (TransferContext.callerDigits). */
  callerDigits?: (listener: (digit: string) => void) => () => void;
  /** The node's signal (a run aborted). */
  signal: AbortSignal;
  /** The caller hung up, or the process hung the call up. */
  callerGone: AbortSignal;
  logger?: Pick<Logger, 'info' | 'warn'>;
  /**
   * MEDIA_TIMEOUT_SECONDS in ms: once bridged, a human whose RTP and RTCP stopped for this long
   * (gone without a BYE) is hung up as if they had hung up; absent or 0: never.
   */
  mediaTimeoutMs?: number;
  /** MEDIA_HOLD_TIMEOUT_SECONDS in ms: the same while the human holds the call; absent or 0: never. */
  mediaHoldTimeoutMs?: number;
  /** The bridged human was hung up for their silence (the leg's record says media_timeout). */
  onMediaTimeout?: () => void;
  /** Test hook: the human leg's media and bridge once they exist. */
  onBridge?: (bridge: MediaBridge, human: RtpSession) => void;
  /** Where a bridged party's REFER may hand the caller on to (transfer-route.ts warmTarget); without it REFER is declined. */
  referTarget?: (uri: string) => DialTarget | null;
  /** Runs just before this leg takes the caller's media (a hand-on: the old bridge stops there). */
  beforeBridge?: () => void;
  /** A provisional response to the leg's INVITE while it rings (a hand-on tells the referrer). */
  onProvisional?: (status: number) => void;
  /**
   * The far end answered with usable media (the leg's call record goes in_progress); with
   * `machineDetection` once the verdict is in (or the leg ended before it: `unknown`), and given it.
   */
  onAnswered?: (answeredBy?: AnsweredBy) => void;
  /**
   * Answering-machine detection on the answered leg (call-recording.ts listenForAnsweredBy, at
   * most about 4 s) before the announcement and the bridge; the caller keeps hearing ringback
   * meanwhile. A machine fails the transfer with `machine` (BYE to the leg).
   */
  machineDetection?: boolean;
  /**
   * What the caller hears while the leg rings: `tone` (null: none) until the far end's early
   * media flows, then that. Absent: nothing of the ringing reaches the caller (a hand-on, where
   * the caller is still bridged to the party who referred).
   */
  ringing?: { tone: RingbackCadence | null };
}

/**
 * The caller's side of a second leg: where the ringing (tone or early media) is queued, and the
 * caller's end of the bridge, taken when the bridge starts and released when it stops.
 */
export interface CallerSide extends ToneSink {
  tap(): SessionTap;
}

/** A call's own RTP session as the caller's side (phone calls). */
export function rtpCaller(rtp: RtpSession): CallerSide {
  return {
    enqueue: (pcm) => rtp.enqueue(pcm),
    get sender() {
      return rtp.sender;
    },
    tap: () => tapSession(rtp),
  };
}

/** A final status of the human's INVITE as a failure reason (see the table at the top). */
export function warmFailureReason(status: number): string {
  if (status === 408 || status === 480 || status === 487) return 'no_answer';
  if (status === 486 || status === 600) return 'busy';
  if (status === 603) return 'declined';
  if (status === 404 || status === 484) return 'invalid_number';
  if (status === 401 || status === 403 || status === 407) return 'trunk_auth_failed';
  return `sip_${status}`;
}

/** The human leg's media as CallMedia, so the announcement plays the way the phone channel's do. */
function humanMedia(rtp: RtpSession, tap: MediaTap): CallMedia {
  return {
    play: (pcm) => rtp.enqueue(pcm),
    get queuedMs() {
      return rtp.sender.queuedMs;
    },
    stopPlayback: () => rtp.sender.clear(),
    onAudio: (l) => tap.onAudio(l),
    onDigit: (l) => tap.onDigit(l),
  };
}

/**
 * The warm transfer to the next party of a hand-on: the referring leg's own (trunk, caller ID, ring
 * timeout, callerGone, further hand-ons) without announcement. The caller's media stays suspended:
 * the old bridge holds it until `beforeBridge` lets the new one take it.
 */
export function nextPartyRequest(
  w: WarmTransferRequest,
  next: DialTarget,
  hooks: HandOnDialHooks,
): WarmTransferRequest {
  const {
    announcement: _a,
    announcer: _b,
    meterTts: _m,
    beforeBridge: _p,
    onProvisional: _r,
    onAnswered: _n,
    onMediaTimeout: _t,
    machineDetection: _d,
    ringing: _g,
    ...same
  } = w;
  return {
    ...same,
    ...next,
    onProvisional: hooks.onProvisional,
    // The bridge no longer listens to the node's signal (nor did the one handing on).
    signal: new AbortController().signal,
    suspendMedia: () => undefined,
    resumeMedia: () => undefined,
    beforeBridge: hooks.beforeBridge,
  };
}

/** The human leg's media before its INVITE: an RtpSession bound, and our side of the SDP. */
interface HumanMedia {
  rtp: RtpSession;
  tap: MediaTap;
  local: LocalAudio;
  origin: Origin;
  /** The format we offer first (what the session sends until the answer says otherwise). */
  first: { name: CodecName; pt: number };
}

/** Binds the human leg's RtpSession (SRTP keys when the target is TLS); null when no port is free. */
async function openHumanMedia(
  w: WarmTransferRequest,
  log: Record<string, unknown>,
): Promise<HumanMedia | null> {
  const codecs = bridgedLegCodecs(w.codecs ?? ['PCMU', 'PCMA']);
  const first = offerCodec({ codecs });
  const codec = createCodec(first.name, first.pt)!;
  const tap = new MediaTap();
  const keys = w.target.transport === 'tls' ? sdesKeys() : undefined;
  const rtp = new RtpSession({
    clock: w.clock,
    ports: w.ports,
    host: w.local.host,
    codec,
    payloadType: first.pt,
    telephoneEventPayloadType: DEFAULT_DYNAMIC_PTS.te8000,
    // Through a TLS target the leg offers SRTP, and stays silent until the answer keys it.
    ...(keys ? { srtp: 'pending' as const } : {}),
    ...(w.pacer ? { pacer: w.pacer } : {}),
    ...tap.sessionOptions,
    onError: (err) => w.logger?.warn({ ...log, err }, 'warm transfer: human leg media error'),
  });
  try {
    await rtp.bind();
  } catch (err) {
    w.logger?.warn({ ...log, err }, 'warm transfer: no RTP port for the human leg');
    return null;
  }
  const local: LocalAudio = {
    address: w.local.host,
    port: rtp.localPort,
    codecs,
    ...(keys ? { srtp: { keys } } : {}),
  };
  const origin = {
    sessionId: String(randomBytes(4).readUInt32BE(0)),
    sessionVersion: 1,
    address: w.local.host,
  };
  return { rtp, tap, local, origin, first };
}

export async function warmTransfer(w: WarmTransferRequest): Promise<TransferResult> {
  if (w.signal.aborted) throw abortError(w.signal);
  if (w.callerGone.aborted) return { status: 'failed', reason: 'caller_hangup' };
  const log = { call_id: w.callId, destination: w.target.uri };
  const media = await openHumanMedia(w, log);
  if (!media) return { status: 'failed', reason: 'media_failed' };
  return new WarmTransfer(w, media, log).run();
}

/**
 * Where a warm transfer stands (the table at the top): `failed` is final before the bridge; `over`
 * after it (either side hung up, or a hand-on moved the caller to the next party's bridge).
 */
export type WarmTransferState = 'ringing' | 'detecting' | 'announcing' | 'bridged' | 'failed' | 'over';

/** How the human's leg is left when the transfer fails: CANCEL while it rings, BYE once answered. */
type LegEnding = 'cancel' | 'bye' | 'none';

/** One warm transfer: the human's leg from INVITE to the bridge's end, one method per event. */
export class WarmTransfer {
  private state: WarmTransferState = 'ringing';
  private readonly rtp: RtpSession;
  private readonly leg: UacLeg;
  private readonly sessionTimer: DialogTimer;
  private readonly requests: SecondLegRequests;
  /** What the human's 2xx carried: its SDP and its session timer. */
  private answerSdp: string | undefined;
  private answeredTimer: DialogTimerState | undefined;
  private ringTimer: TimerHandle | null = null;
  private bridge: MediaBridge | null = null;
  private callerTap: SessionTap | null = null;
  /** Settles `bridged` (the promise the transfer's success carries). */
  private endBridge: (() => void) | null = null;
  private readonly announcing = new AbortController();
  /** Ends answering-machine detection early (the transfer failed meanwhile). */
  private readonly detecting = new AbortController();
  /** Whether onAnswered has been called (once per leg). */
  private answerReported = false;
  /** A hand-on is under way (REFER from the bridged party), and whether the referrer left meanwhile. */
  private handingOn = false;
  private referrerLeft = false;
  private settle!: { resolve: (r: TransferResult) => void; reject: (err: unknown) => void };
  /** The caller's ringback while the leg rings (null when the caller hears nothing of it). */
  private readonly ringback: RingbackTone | null;
  /** The SDP of an 18x (early media), the unsubscribe of its forwarding, and whether it was heard. */
  private earlySdp: string | undefined;
  private earlyOff: (() => void) | null = null;
  private earlyHeard = false;

  constructor(
    private readonly w: WarmTransferRequest,
    private readonly media: HumanMedia,
    private readonly log: Record<string, unknown>,
  ) {
    this.rtp = media.rtp;
    this.leg = new UacLeg({
      stack: w.stack,
      inviteHeaders: [...timerInviteHeaders(), ...(w.carrierHeaders ?? [])],
      on2xx: (res) => (this.answeredTimer = timerOfOur2xx(res)),
      localHost: w.local.host,
      localPort: w.local.port,
      newId: w.newId,
      offer: () => buildOffer(media.local, media.origin),
      onAnswer: (sdp) => (this.answerSdp = sdp),
      onEarlyAnswer: (sdp, status) => this.early(sdp, status),
      ...(w.resolve ? { resolve: w.resolve } : {}),
    });
    this.ringback = w.ringing ? new RingbackTone(w.clock, w.caller, w.ringing.tone) : null;
    this.sessionTimer = new DialogTimer(w.clock, this.leg, () => this.lost());
    // The human's in-dialog requests (INFO digits, re-INVITE/UPDATE, REFER): second-leg-requests.ts.
    const transport = w.target.transport === 'udp' ? '' : `;transport=${w.target.transport}`;
    const contact = `<sip:${w.from}@${w.local.host}:${w.local.port}${transport}>`;
    this.requests = new SecondLegRequests(
      {
        rtp: this.rtp,
        local: media.local,
        origin: media.origin,
        contact,
        timer: this.sessionTimer,
        host: w.local.host,
      },
      media.first,
    );
    this.leg.onRequest(this.requests.handle);
  }

  /** Rings the human; settles `failed` before the bridge, or `success` once bridged. */
  run(): Promise<TransferResult> {
    return new Promise<TransferResult>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.w.signal.addEventListener('abort', this.onAbort, { once: true });
      this.w.callerGone.addEventListener('abort', this.onCallerGone, { once: true });
      this.ringTimer = this.w.clock.setTimeout(() => {
        this.ringTimer = null;
        if (this.state === 'ringing') this.fail('no_answer', 'cancel');
      }, this.w.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS);
      this.ring();
    });
  }

  private ring(): void {
    const { w } = this;
    this.leg.invite(
      w.target,
      { from: w.from, auth: w.auth, callId: w.callId },
      {
        provisional: (status) => {
          if (this.state !== 'ringing') return;
          // Alerting (180–189) with no early media heard yet: the caller hears our tone.
          if (status >= 180 && !this.earlyHeard) this.ringback?.start();
          w.onProvisional?.(status);
        },
        final: (status) => this.final(status),
        bye: () => {
          if (this.state === 'bridged') this.humanGone();
          else this.fail('human_hangup', 'none');
        },
        transportError: (err) => {
          if (err) w.logger?.warn({ ...this.log, err }, 'warm transfer: human leg transport error');
          if (this.state === 'bridged') this.humanGone();
          else this.fail('leg_failed', this.state === 'ringing' ? 'none' : 'bye');
        },
      },
    );
  }

  /** The human's final response to our INVITE. */
  private final(status: number): void {
    if (this.state !== 'ringing') {
      // A 2xx that crossed our CANCEL (ring timeout, caller gone, abort): nobody wants it.
      if (status >= 200 && status < 300) this.leg.bye();
      return;
    }
    if (status >= 300) return this.fail(warmFailureReason(status), 'none');
    this.clearRingTimer();
    this.answered();
  }

  /** The human's SDP (an 18x's or the 2xx's) read against our offer; null when unusable. */
  private readSdp(sdp: string | undefined): NegotiatedAudio | null {
    const reading = sdp === undefined ? undefined : readAnswer(sdp, this.media.local);
    if (!reading?.ok) return null;
    const codec = createCodec(reading.audio.codec.name, reading.audio.codec.pt);
    if (!codec) return null;
    this.rtp.setCodec(codec, reading.audio.codec.pt);
    this.rtp.setSrtp(reading.audio.srtp ?? null);
    this.rtp.setRemote({ address: reading.audio.remoteAddress, port: reading.audio.remotePort });
    return reading.audio;
  }

  /**
   * An 18x with SDP while ringing: the human leg's media receives the far end's early media, and
   * from its first frame the caller hears it instead of the tone. We send nothing before the answer.
   */
  private early(sdp: string, status: number): void {
    if (this.state !== 'ringing' || !this.w.ringing) return;
    if (!this.readSdp(sdp)) {
      this.w.logger?.warn({ ...this.log, status }, 'warm transfer: unusable early media SDP; ringback stays');
      return;
    }
    this.earlySdp = sdp;
    this.rtp.setDirection('recvonly');
    this.rtp.start();
    const caller = this.w.caller;
    this.earlyOff ??= this.media.tap.onAudio((pcm) => {
      if (!this.earlyHeard) {
        this.earlyHeard = true;
        this.ringback?.stop();
        this.w.logger?.info({ ...this.log, status }, 'warm transfer: early media to the caller');
      }
      // The bridge's drift rule: never let the caller's queue grow behind the far end's clock.
      if (caller.sender.queuedMs <= 200) caller.enqueue(pcm);
    });
  }

  /** The caller stops hearing the ringing (tone or early media); what is queued is dropped. */
  private stopRinging(): void {
    this.ringback?.stop();
    this.stopEarlyMedia();
  }

  /** The far end's early media stops reaching the caller (the tone, if any, goes on). */
  private stopEarlyMedia(): void {
    if (this.earlyOff) {
      this.earlyOff();
      this.earlyOff = null;
      if (this.earlyHeard) this.w.caller.sender.clear();
    }
  }

  /**
   * ringing → announcing: the answer's SDP set on the human's media, the caller's suspended; with
   * machine detection ringing → detecting first (the caller still hears the tone, not the leg).
   */
  private answered(): void {
    if (this.w.machineDetection) this.stopEarlyMedia();
    else this.stopRinging();
    // A 2xx without SDP confirms the early answer (a 183's).
    const audio = this.readSdp(this.answerSdp ?? this.earlySdp);
    if (!audio) return this.fail('media_failed', 'bye');
    this.requests.codec = { name: audio.codec.name, pt: audio.codec.pt };
    this.rtp.setDirection(audio.direction);
    this.rtp.start();
    this.sessionTimer.arm(this.answeredTimer);
    if (this.w.machineDetection) return this.detect();
    this.proceed();
  }

  /** detecting: the leg's audio through the detector; a machine fails the transfer, else on. */
  private detect(): void {
    this.state = 'detecting';
    const { w } = this;
    void listenForAnsweredBy(w.clock, (l) => this.media.tap.onAudio(l), this.detecting.signal).then((by) => {
      if (this.state !== 'detecting') return;
      w.logger?.info({ ...this.log, answered_by: by }, 'warm transfer: answering-machine detection');
      this.reportAnswer(by);
      if (by === 'machine') return this.fail('machine', 'bye');
      this.proceed();
    });
  }

  /** → announcing: the caller's media suspended, the announcement (or the bridge at once). */
  private proceed(): void {
    this.stopRinging();
    this.state = 'announcing';
    this.reportAnswer();
    this.w.suspendMedia();
    this.announce();
  }

  private reportAnswer(by?: AnsweredBy): void {
    if (this.answerReported) return;
    this.answerReported = true;
    this.w.onAnswered?.(by);
  }

  /** The announcement into the human's leg only, then the bridge (at once without one). */
  private announce(): void {
    const { w } = this;
    const text = w.announcement?.trim();
    if (!text || !w.announcer) return this.startBridge();
    const { tts, voice, language } = w.announcer;
    w.meterTts?.(text.length);
    playSpeech(
      { clock: w.clock, media: humanMedia(this.rtp, this.media.tap), tts },
      { text, voice, ...(language ? { language } : {}), signal: this.announcing.signal },
    ).then(
      () => this.startBridge(),
      (err: unknown) => {
        if (this.announcing.signal.aborted) return;
        // A failed synthesis costs the announcement, not the transfer.
        w.logger?.warn({ ...this.log, err }, 'warm transfer: announcement failed; bridging without it');
        this.startBridge();
      },
    );
  }

  /** announcing → bridged: the caller's media joined to the human's; the transfer succeeds. */
  private startBridge(): void {
    if (this.state !== 'announcing') return;
    const { w } = this;
    this.detach();
    w.beforeBridge?.();
    const callerTap = w.caller.tap();
    this.callerTap = callerTap;
    const callerSide = w.callerDigits ? withDigitSource(callerTap.end, w.callerDigits) : callerTap.end;
    const bridge = new MediaBridge(callerSide, rtpBridgeEnd(this.rtp, this.media.tap));
    this.bridge = bridge;
    bridge.start();
    this.requests.toCaller = (digit) => callerTap.end.sendDigit(digit);
    this.requests.onRefer = this.onRefer;
    this.state = 'bridged';
    this.rtp.watchMedia(
      { timeoutMs: w.mediaTimeoutMs ?? 0, holdTimeoutMs: w.mediaHoldTimeoutMs ?? 0 },
      this.mediaTimedOut,
    );
    w.onBridge?.(bridge, this.rtp);
    w.logger?.info(this.log, 'warm transfer bridged');
    const bridged = new Promise<void>((r) => (this.endBridge = r));
    this.settle.resolve({ status: 'success', bridged });
  }

  /** Before the bridge: → failed, the leg and media cleaned up, `failed` (or the abort's rejection). */
  private fail(reason: string, how: LegEnding, error?: unknown): void {
    if (this.state !== 'ringing' && this.state !== 'detecting' && this.state !== 'announcing') return;
    const wasAnnouncing = this.state === 'announcing';
    // Answered, but gone before detection's verdict: its record is answered all the same.
    if (this.state === 'detecting') this.reportAnswer('unknown');
    this.detecting.abort();
    this.state = 'failed';
    this.stopRinging();
    this.detach();
    this.sessionTimer.stop();
    this.w.callerGone.removeEventListener('abort', this.onCallerGone);
    this.announcing.abort();
    if (how === 'cancel') this.leg.cancel();
    if (how === 'bye') this.leg.bye();
    if (wasAnnouncing) this.w.resumeMedia();
    void this.rtp.close();
    this.w.logger?.info({ ...this.log, reason }, 'warm transfer failed');
    if (error !== undefined) this.settle.reject(error);
    else this.settle.resolve({ status: 'failed', reason });
  }

  /** bridged → over; `byeHuman` when the caller's side ended it. */
  private unbridge(byeHuman: boolean): void {
    if (this.state !== 'bridged') return;
    this.state = 'over';
    this.w.callerGone.removeEventListener('abort', this.onCallerGone);
    this.stopBridge();
    if (byeHuman) this.leg.bye();
    this.w.logger?.info(
      { ...this.log, by: byeHuman ? 'caller' : 'human', counters: this.bridge?.counters },
      'warm transfer bridge over',
    );
    void this.rtp.close().finally(() => this.endBridge?.());
  }

  private stopBridge(): void {
    this.sessionTimer.stop();
    this.rtp.unwatchMedia();
    this.bridge?.stop();
    this.callerTap?.untap();
    this.requests.toCaller = null;
  }

  /** The bridged human left; during a hand-on its outcome says whether the caller goes on. */
  private humanGone(): void {
    if (!this.handingOn) return this.unbridge(false);
    this.referrerLeft = true;
    this.stopBridge();
  }

  private readonly onAbort = (): void => {
    this.fail('aborted', this.state === 'ringing' ? 'cancel' : 'bye', abortError(this.w.signal));
  };

  private readonly onCallerGone = (): void => {
    if (this.state === 'bridged') this.unbridge(true);
    else this.fail('caller_hangup', this.state === 'ringing' ? 'cancel' : 'bye');
  };

  /** The human's leg died under us (session timer): BYE to the human, as if they had hung up. */
  private lost(): void {
    this.w.logger?.warn(this.log, "warm transfer: the human leg's session timer ran out");
    if (this.state === 'bridged') {
      this.leg.bye();
      this.humanGone();
    } else this.fail('leg_failed', 'bye');
  }

  /**
   * The bridged human sent nothing for MEDIA_TIMEOUT_SECONDS (MEDIA_HOLD_TIMEOUT_SECONDS while
   * holding the call): gone; BYE, as if they had hung up.
   */
  private readonly mediaTimedOut = (held: boolean): void => {
    if (this.state !== 'bridged') return;
    if (held)
      this.w.logger?.warn(
        { ...this.log, media_hold_timeout_seconds: (this.w.mediaHoldTimeoutMs ?? 0) / 1000 },
        'warm transfer: no RTP or RTCP from the human leg while it held the call: hanging up (media_timeout)',
      );
    else
      this.w.logger?.warn(
        { ...this.log, media_timeout_seconds: (this.w.mediaTimeoutMs ?? 0) / 1000 },
        'warm transfer: no RTP or RTCP from the human leg: hanging up (media_timeout)',
      );
    this.w.onMediaTimeout?.();
    this.leg.bye();
    this.humanGone();
  };

  /** A REFER from the bridged human: the hand-on (transfer-handon.ts) dials the next party. */
  private readonly onRefer = (req: SipRequest, respond: Respond): void => {
    const { w } = this;
    if (this.state !== 'bridged' || this.handingOn || !w.referTarget) {
      return declineRefer(respond, w.local.host, 'a transfer of this call is under way or over');
    }
    this.handingOn = true;
    void handOn({
      refer: req,
      respond,
      leg: this.leg,
      clock: w.clock,
      route: w.referTarget,
      host: w.local.host,
      ringTimeoutMs: w.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS,
      dial: (next, hooks) => warmTransfer(nextPartyRequest(w, next, hooks)),
      handover: () => this.handOver(),
      byeReferrer: () => this.leg.bye(),
      ...(w.logger ? { logger: w.logger } : {}),
      log: this.log,
    }).then((result) => {
      this.handingOn = false;
      // Handed on: this transfer's bridge is over when the new party's is.
      if (result?.status === 'success') void result.bridged?.finally(() => this.endBridge?.());
      else if (this.referrerLeft) this.unbridge(false);
    });
  };

  /** The next party answered: bridged → over here; the caller's media goes to the new bridge. */
  private handOver(): void {
    this.state = 'over';
    this.w.callerGone.removeEventListener('abort', this.onCallerGone);
    this.stopBridge();
    void this.rtp.close();
  }

  private clearRingTimer(): void {
    if (this.ringTimer) this.w.clock.clearTimeout(this.ringTimer);
    this.ringTimer = null;
  }

  /** The ring timer and the node's signal no longer concern the transfer. */
  private detach(): void {
    this.clearRingTimer();
    this.w.signal.removeEventListener('abort', this.onAbort);
  }
}
