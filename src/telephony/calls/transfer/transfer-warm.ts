// Warm transfer (the `transfer_to_human` node): a second leg to the human, the announcement played
// to the human only, then the two calls' media bridged until one side hangs up.
//
//   ringing     INVITE through the trunk (transfer-route.ts warmTarget), our number as caller ID,
//               G.711 offered in SIP_CODECS's order (the human is on the PSTN behind the trunk;
//               call-media-setup.ts bridgedLegCodecs). The caller hears
//               silence meanwhile; the workflow's own playback has finished (the node waits).
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
// The human leg is not a call row of its own: it is part of the caller's call, whose row stays
// `in_progress` through the bridge and ends `completed` with hangup_reason `transfer` when the
// bridge is over (so duration_seconds and voice_minutes cover the bridged talk). The human leg's
// SIP Call-ID and outcome are logged with the call's id.
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
// Not done: no ringback tone is played to the caller while the human's phone rings.
import { randomBytes } from 'node:crypto';
import type { CallMedia } from '../../../channels/call-media.js';
import { abortError } from '../../../channels/channel.js';
import type { TtsProvider } from '../../../providers/tts/tts.types.js';
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/logger.js';
import { playSpeech } from '../../../voice/playback.js';
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
import type { LocalAudio } from '../../sip/sdp/session.js';
import type { SipStack } from '../../sip/stack.js';
import { UacLeg } from '../../sip/uac-leg.js';
import { SecondLegRequests } from './second-leg-requests.js';
import {
  DialogTimer,
  timerInviteHeaders,
  timerOfOur2xx,
  type DialogTimerState,
} from '../live/session-refresh.js';
import { bridgedLegCodecs, offerCodec, sdesKeys } from '../call-media/call-media-setup.js';
import type { DigestCredentials, SipTarget } from '../outbound/sip-leg.js';
import type { TransferResult } from './transfer-context.js';
import { declineRefer, handOn, nextPartyRequest } from './transfer-handon.js';
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
  /** Extra INVITE header fields the trunk's carrier asks for (carrier_a: P-Asserted-Identity). */
  carrierHeaders?: readonly (readonly [string, string])[];
  /** The call's id, for logs. */
  callId: string;
  ringTimeoutMs?: number;
  announcement?: string;
  announcer?: Announcer;
  /** Our codec preference (SIP_CODECS); the leg offers its G.711 part. Default PCMU, PCMA. */
  codecs?: readonly CodecName[];
  /** The caller's media, bridged to the human once the announcement is over. */
  callerRtp: RtpSession;
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
  /** Test hook: the human leg's media and bridge once they exist. */
  onBridge?: (bridge: MediaBridge, human: RtpSession) => void;
  /** Where a bridged party's REFER may hand the caller on to (transfer-route.ts warmTarget); without it REFER is declined. */
  referTarget?: (uri: string) => DialTarget | null;
  /** Runs just before this leg takes the caller's media (a hand-on: the old bridge stops there). */
  beforeBridge?: () => void;
  /** A provisional response to the leg's INVITE while it rings (a hand-on tells the referrer). */
  onProvisional?: (status: number) => void;
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

type Phase = 'ringing' | 'announcing' | 'bridged' | 'done';

export async function warmTransfer(w: WarmTransferRequest): Promise<TransferResult> {
  if (w.signal.aborted) throw abortError(w.signal);
  if (w.callerGone.aborted) return { status: 'failed', reason: 'caller_hangup' };
  const log = { call_id: w.callId, destination: w.target.uri };
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
    return { status: 'failed', reason: 'media_failed' };
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
  let answerSdp: string | undefined;
  let answeredTimer: DialogTimerState | undefined;
  let onLost: () => void = () => undefined;
  const leg = new UacLeg({
    stack: w.stack,
    inviteHeaders: [...timerInviteHeaders(), ...(w.carrierHeaders ?? [])],
    on2xx: (res) => (answeredTimer = timerOfOur2xx(res)),
    localHost: w.local.host,
    localPort: w.local.port,
    newId: w.newId,
    offer: () => buildOffer(local, origin),
    onAnswer: (sdp) => (answerSdp = sdp),
  });
  const sessionTimer = new DialogTimer(w.clock, leg, () => onLost());

  // The human's in-dialog requests (INFO digits, re-INVITE/UPDATE, REFER): second-leg-requests.ts.
  const transport = w.target.transport === 'udp' ? '' : `;transport=${w.target.transport}`;
  const contact = `<sip:${w.from}@${w.local.host}:${w.local.port}${transport}>`;
  const requests = new SecondLegRequests(
    { rtp, local, origin, contact, timer: sessionTimer, host: w.local.host },
    first,
  );
  leg.onRequest(requests.handle);

  return new Promise<TransferResult>((resolve, reject) => {
    let phase: Phase = 'ringing';
    let timer: TimerHandle | null = null;
    let bridge: MediaBridge | null = null;
    let callerTap: SessionTap | null = null;
    let endBridge: (() => void) | null = null;
    const announcing = new AbortController();

    const detach = () => {
      if (timer) w.clock.clearTimeout(timer);
      timer = null;
      w.signal.removeEventListener('abort', onAbort);
    };
    /** Before the bridge: clean up and report `failed` (or reject when the node was aborted). */
    const fail = (reason: string, how: 'cancel' | 'bye' | 'none', error?: unknown) => {
      if (phase === 'done' || phase === 'bridged') return;
      const wasAnnouncing = phase === 'announcing';
      phase = 'done';
      detach();
      sessionTimer.stop();
      w.callerGone.removeEventListener('abort', onCallerGone);
      announcing.abort();
      if (how === 'cancel') leg.cancel();
      if (how === 'bye') leg.bye();
      if (wasAnnouncing) w.resumeMedia();
      void rtp.close();
      w.logger?.info({ ...log, reason }, 'warm transfer failed');
      if (error !== undefined) reject(error);
      else resolve({ status: 'failed', reason });
    };
    const stopBridge = () => {
      sessionTimer.stop();
      bridge?.stop();
      callerTap?.untap();
      requests.toCaller = null;
    };
    /** After the bridge: tear it down; `byeHuman` when the caller's side ended it. */
    const unbridge = (byeHuman: boolean) => {
      if (phase !== 'bridged') return;
      phase = 'done';
      w.callerGone.removeEventListener('abort', onCallerGone);
      stopBridge();
      if (byeHuman) leg.bye();
      w.logger?.info(
        { ...log, by: byeHuman ? 'caller' : 'human', counters: bridge?.counters },
        'warm transfer bridge over',
      );
      void rtp.close().finally(() => endBridge?.());
    };
    // A hand-on under way (REFER from the bridged party); the referrer leaving meanwhile stops the
    // bridge, and the hand-on's outcome says whether the caller goes on (new bridge) or not.
    let handingOn = false;
    let referrerLeft = false;
    const humanGone = () => {
      if (!handingOn) return unbridge(false);
      referrerLeft = true;
      stopBridge();
    };
    const onAbort = () => fail('aborted', phase === 'ringing' ? 'cancel' : 'bye', abortError(w.signal));
    const onCallerGone = () => {
      if (phase === 'bridged') unbridge(true);
      else fail('caller_hangup', phase === 'ringing' ? 'cancel' : 'bye');
    };
    w.signal.addEventListener('abort', onAbort, { once: true });
    w.callerGone.addEventListener('abort', onCallerGone, { once: true });
    // The human's leg died under us (session timer): BYE to the human, as if they had hung up.
    onLost = () => {
      w.logger?.warn(log, "warm transfer: the human leg's session timer ran out");
      if (phase === 'bridged') {
        leg.bye();
        humanGone();
      } else fail('leg_failed', 'bye');
    };

    const onRefer: SecondLegRequests['onRefer'] = (req, respond) => {
      if (phase !== 'bridged' || handingOn || !w.referTarget) {
        return declineRefer(respond, w.local.host, 'a transfer of this call is under way or over');
      }
      handingOn = true;
      void handOn({
        refer: req,
        respond,
        leg,
        clock: w.clock,
        route: w.referTarget,
        host: w.local.host,
        ringTimeoutMs: w.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS,
        dial: (next, hooks) => warmTransfer(nextPartyRequest(w, next, hooks)),
        handover: () => {
          phase = 'done';
          w.callerGone.removeEventListener('abort', onCallerGone);
          stopBridge();
          void rtp.close();
        },
        byeReferrer: () => leg.bye(),
        ...(w.logger ? { logger: w.logger } : {}),
        log,
      }).then((result) => {
        handingOn = false;
        // Handed on: this transfer's bridge is over when the new party's is.
        if (result?.status === 'success') void result.bridged?.finally(() => endBridge?.());
        else if (referrerLeft) unbridge(false);
      });
    };

    const startBridge = () => {
      if (phase !== 'announcing') return;
      detach();
      w.beforeBridge?.();
      callerTap = tapSession(w.callerRtp);
      const callerSide = w.callerDigits ? withDigitSource(callerTap.end, w.callerDigits) : callerTap.end;
      bridge = new MediaBridge(callerSide, rtpBridgeEnd(rtp, tap));
      bridge.start();
      const callerEnd = callerTap.end;
      requests.toCaller = (digit) => callerEnd.sendDigit(digit);
      requests.onRefer = onRefer;
      phase = 'bridged';
      w.onBridge?.(bridge, rtp);
      w.logger?.info(log, 'warm transfer bridged');
      const bridged = new Promise<void>((r) => (endBridge = r));
      resolve({ status: 'success', bridged });
    };

    const answered = () => {
      const reading = answerSdp === undefined ? undefined : readAnswer(answerSdp, local);
      const human = reading?.ok ? createCodec(reading.audio.codec.name, reading.audio.codec.pt) : null;
      if (!reading?.ok || !human) return fail('media_failed', 'bye');
      const audio = reading.audio;
      rtp.setCodec(human, audio.codec.pt);
      rtp.setSrtp(audio.srtp ?? null);
      requests.codec = { name: audio.codec.name, pt: audio.codec.pt };
      rtp.setRemote({ address: audio.remoteAddress, port: audio.remotePort });
      rtp.setDirection(audio.direction);
      rtp.start();
      sessionTimer.arm(answeredTimer);
      phase = 'announcing';
      w.suspendMedia();
      const text = w.announcement?.trim();
      if (!text || !w.announcer) return startBridge();
      const { tts, voice, language } = w.announcer;
      w.meterTts?.(text.length);
      playSpeech(
        { clock: w.clock, media: humanMedia(rtp, tap), tts },
        { text, voice, ...(language ? { language } : {}), signal: announcing.signal },
      ).then(startBridge, (err: unknown) => {
        if (announcing.signal.aborted) return;
        // A failed synthesis costs the announcement, not the transfer.
        w.logger?.warn({ ...log, err }, 'warm transfer: announcement failed; bridging without it');
        startBridge();
      });
    };

    timer = w.clock.setTimeout(() => {
      timer = null;
      if (phase === 'ringing') fail('no_answer', 'cancel');
    }, w.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS);

    leg.invite(
      w.target,
      { from: w.from, auth: w.auth, callId: w.callId },
      {
        provisional: (status) => {
          if (phase === 'ringing') w.onProvisional?.(status);
        },
        final: (status) => {
          if (phase !== 'ringing') {
            // A 2xx that crossed our CANCEL (ring timeout, caller gone, abort): nobody wants it.
            if (status >= 200 && status < 300) leg.bye();
            return;
          }
          if (status >= 300) return fail(warmFailureReason(status), 'none');
          if (timer) w.clock.clearTimeout(timer);
          timer = null;
          answered();
        },
        bye: () => {
          if (phase === 'bridged') humanGone();
          else fail('human_hangup', 'none');
        },
        transportError: (err) => {
          if (err) w.logger?.warn({ ...log, err }, 'warm transfer: human leg transport error');
          if (phase === 'bridged') humanGone();
          else fail('leg_failed', phase === 'ringing' ? 'none' : 'bye');
        },
      },
    );
  });
}
