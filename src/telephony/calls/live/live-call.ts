// One connected call in this process, whichever direction: its media (RtpSession + RtpCallMedia),
// the phone channel the workflow runs on, the far end's in-dialog requests (INFO DTMF, re-INVITE
// and UPDATE for hold, resume and session-timer refreshes; REFER declined, see transfer-handon.ts),
// transfers through the injected transferer and the dial node through the dialler, and the end: exactly one ending is
// recorded (workflow, remote, transfer, shutdown), the media (recording, RTP port) closed at once,
// then the session is stopped if it still runs and usage is metered.
import type { CallControl } from '../../../channels/call-media.js';
import type {
  Channel,
  DialOptions,
  DialOutcome,
  TransferOptions,
  TransferOutcome,
} from '../../../channels/channel.js';
import type { SessionEndReason as EngineEndReason } from '../../../engine/events.js';
import type { LiveSession } from '../../../engine/session-runtime.js';
import type { ServiceDeps } from '../../../modules/context.js';
import type { SessionHost } from '../../../modules/sessions/session-host.js';
import type { EndedBy } from '../../../modules/calls/call-endings.js';
import {
  CallRecordsService,
  type CallRecord,
  type CallRecords,
  type RunnableCall,
} from '../../../modules/calls/call-records.service.js';
import type { RtpSession } from '../../media/rtp-session.js';
import type { DialogRequests, InDialogHandler, Respond } from '../../sip/dialog-requests.js';
import { parseInfoDtmf } from '../../sip/extensions/info-dtmf.js';
import { decideUasTimer, type SessionExpires } from '../../sip/extensions/session-timer.js';
import { getHeader } from '../../sip/message/access.js';
import type { HeaderInit } from '../../sip/message/build.js';
import type { SipRequest } from '../../sip/message/types.js';
import type { Source } from '../../sip/transport/routing.js';
import { answerOffer } from '../../sip/sdp/answer.js';
import type { LocalAudio, Origin } from '../../sip/sdp/session.js';
import type { SipStack } from '../../sip/stack.js';
import type { UacLegOptions } from '../../sip/uac-leg.js';
import { applyAudio, type MediaEnv } from '../call-media/call-media-setup.js';
import { ensureCallRecording, stopCallRecording } from './call-recording.js';
import type { RtpCallMedia } from '../call-media/rtp-call-media.js';
import { DialogTimer, timerOfTheirRequest, type DialogTimerState } from './session-refresh.js';
import {
  TRANSFER_UNAVAILABLE,
  type SecondLegDialler,
  type TransferContext,
  type Transferer,
} from '../transfer/transfer-context.js';
import { declineRefer } from '../transfer/transfer-handon.js';
import { ourNumber } from '../transfer/transfer-route.js';

/** The session end reason for a caller who hung up. */
const CALLER_HANGUP: EngineEndReason = 'caller_hangup';

/** What the call host needs of a phone channel beyond Channel: its metering, and closing it. */
export interface PhoneChannelLike extends Channel {
  usage(): { ttsCharacters: number; sttSeconds: number };
  close(): void | Promise<void>;
}

export interface ChannelParts {
  media: RtpCallMedia;
  control: CallControl;
  call: CallRecord;
}

export type PhoneChannelFactory = (parts: ChannelParts) => PhoneChannelLike;

/** What the call host is given, and every call of the node shares (inbound, outbound, live). */
export interface CallHostDeps {
  deps: ServiceDeps;
  /** Where calls are recorded (default: the call records service over deps). */
  records?: CallRecords;
  sessions: SessionHost;
  newChannel: PhoneChannelFactory;
  /** Provider ids tts_characters and stt_seconds are metered under. */
  providers: { tts: string; stt: string | null };
  transferer?: Transferer;
  /** Dials a `dial` node's second leg; without it the node fails. */
  dialler?: SecondLegDialler;
  stack: SipStack;
  /** Our SIP address as peers see it. */
  local: { host: string; port: number };
  media: MediaEnv;
  /** True from SIGTERM on: new INVITEs get 503 (CallDrain.draining). */
  draining?: () => boolean;
  /** Where outbound INVITEs to a termination host go (UacLegOptions.resolve). */
  resolve?: UacLegOptions['resolve'];
  /**
   * Waits for an INVITE's slot to a carrier host that caps the call rate (InvitePacer.slot): one
   * pacing per node for POST /calls and the second legs of its calls alike.
   */
  pace?: (host: string, perSecond: number) => Promise<void>;
  /** The trunk whose registered Contact an INVITE came on (TrunkManager.trunkOfRequest). */
  trunkOfRequest?: (req: SipRequest, source: Source) => string | undefined;
}

/**
 * The ways our side ends a call (the far end's BYE is `remote`); `lost`: the dialog died under
 * the call (a session-timer refresh failed or never came), recorded completed / carrier_error;
 * `media_timeout`: the far end's media stopped (MEDIA_TIMEOUT_SECONDS), completed / media_timeout.
 */
export type LocalEnding = Extract<EndedBy, 'workflow' | 'transfer' | 'shutdown' | 'media_timeout'> | 'lost';

export interface LiveCallOptions {
  call: CallRecord;
  leg: DialogRequests;
  rtp: RtpSession;
  media: RtpCallMedia;
  /** Records the end (and sends BYE for our endings); `remote`: the far end hung up already. */
  end: (by: LocalEnding | 'remote') => Promise<void>;
  /** Our Contact, for 2xx answers to re-INVITE and UPDATE. */
  contact: string;
  /** Our SDP side as first answered or offered, for re-INVITE answers (version goes up). */
  local: LocalAudio;
  origin: Origin;
  /** The SDP we sent last (a re-INVITE without an offer gets it again). */
  sdp: string;
  codec: { name: string; pt: number };
  /** The session timer the 2xx set, if any (inbound: decideUasTimer of the INVITE). */
  timer?: SessionExpires & { refresher: 'uac' | 'uas' };
  /** Instead of `timer`: the timer as we run it (outbound: read from the callee's 2xx). */
  dialogTimer?: DialogTimerState;
  /** True when we are the UAS of the dialog (the refresher role is read from that side). */
  uas: boolean;
}

export class LiveCall {
  private ended = false;
  private session: LiveSession | null = null;
  private channel: PhoneChannelLike | null = null;
  /**
   * `bridged`: a warm transfer owns the caller until its bridge ends (the call then ends);
   * `dialled`: a dial node's leg is bridged to the caller, and the workflow goes on after it.
   */
  private transfer: 'none' | 'referring' | 'bridged' | 'dialled' = 'none';
  /** The far end hung up while our REFER was at work; the transfer's outcome says how it ended. */
  private goneWhileReferring = false;
  private readonly gone = new AbortController();
  private sessionVersion: number;
  private readonly timer: DialogTimer;
  /** Characters a transfer's announcement sent to TTS (metered with the channel's). */
  private announcedCharacters = 0;
  private readonly records: CallRecords;
  private resolveClosed!: () => void;
  /** Resolves once the call is over here: ending recorded, usage metered, media closed. */
  readonly closed = new Promise<void>((r) => (this.resolveClosed = r));
  private resolveOver!: () => void;
  /**
   * Resolves the moment the call ends (either side), before its teardown: from then on it holds no
   * media and carries no caller, which is what admission counts (`closed` may come much later).
   */
  readonly over = new Promise<void>((r) => (this.resolveOver = r));

  constructor(
    private readonly host: CallHostDeps,
    private readonly o: LiveCallOptions,
  ) {
    this.sessionVersion = o.origin.sessionVersion;
    this.records = host.records ?? new CallRecordsService(host.deps);
    o.leg.onRequest(this.requests);
    this.timer = new DialogTimer(host.deps.clock, o.leg, () => void this.hangup('lost'));
    // The INVITE's refresher role is read from the side we were of it (UAS inbound, UAC outbound).
    const initial =
      o.dialogTimer ??
      (o.timer
        ? { seconds: o.timer.seconds, weRefresh: (o.timer.refresher === 'uas') === o.uas }
        : undefined);
    this.timer.arm(initial);
  }

  /** The session timer now running on the call's dialog, if any. */
  get sessionTimer(): DialogTimerState | undefined {
    return this.timer.state;
  }

  get id(): string {
    return this.o.call.id;
  }

  get rtp(): RtpSession {
    return this.o.rtp;
  }

  /** Runs the call's workflow on a phone channel over this call's media. */
  async run(run: RunnableCall): Promise<void> {
    const control: CallControl = {
      transfer: (destination, options) => this.transferTo(destination, options),
      dial: (destination, options) => this.dialOut(destination, options),
      hangup: async () => {
        await this.hangup('workflow');
      },
    };
    try {
      if (this.ended) return;
      // An outbound call's recording started at the answer already (call-recording.ts).
      ensureCallRecording(this.host.deps, run.call, this.o.rtp, this.o.media);
      // From the answer on, a far end that vanished without a BYE is noticed by its silence.
      this.o.rtp.watchMedia(
        {
          timeoutMs: this.host.media.mediaTimeoutMs ?? 0,
          holdTimeoutMs: this.host.media.mediaHoldTimeoutMs ?? 0,
        },
        (held) => this.mediaTimedOut(held),
      );
      const channel = this.host.newChannel({ media: this.o.media, control, call: run.call });
      this.channel = channel;
      const session = await this.host.sessions.run(run.session, channel, {
        graph: run.graph,
        onFinished: () => {
          if (this.transfer !== 'bridged') void this.hangup('workflow');
        },
      });
      this.session = session;
      // The caller may have hung up while the session was being set up.
      if (this.ended) void session.end(CALLER_HANGUP);
      else session.start();
    } catch (err) {
      this.host.deps.logger.error({ err, call_id: this.id }, 'could not run the workflow of a call');
      await this.hangup('workflow');
    }
  }

  /** Our side ends the call; returns once BYE went out and the ending is stored. */
  async hangup(by: LocalEnding): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.resolveOver();
    // A transfer still at work (a ringing human, a bridge) stops with the call.
    if (by === 'shutdown' || by === 'lost' || by === 'media_timeout')
      this.gone.abort(new Error(`the call ended (${by})`));
    this.o.media.close();
    await this.o
      .end(by)
      .catch((err: unknown) =>
        this.host.deps.logger.error({ err, call_id: this.id }, 'could not record the end of a call'),
      );
    if (by === 'shutdown') void this.session?.end('client_disconnected');
    if (by === 'lost' || by === 'media_timeout') void this.session?.end(CALLER_HANGUP);
    // Not awaited: a hangup node waits for this, and the session it runs in ends after it.
    void this.teardown();
  }

  /**
   * Nothing arrived from the far end for MEDIA_TIMEOUT_SECONDS (MEDIA_HOLD_TIMEOUT_SECONDS while
   * it held the call): it is gone; BYE and record it.
   */
  private mediaTimedOut(held: boolean): void {
    const { rtpIn, rtcpIn } = this.o.rtp.counters;
    const counted = { call_id: this.id, rtp_in: rtpIn, rtcp_in: rtcpIn };
    if (held)
      this.host.deps.logger.warn(
        { ...counted, media_hold_timeout_seconds: (this.host.media.mediaHoldTimeoutMs ?? 0) / 1000 },
        'no RTP or RTCP from the far end while it held the call: hanging up (media_timeout)',
      );
    else
      this.host.deps.logger.warn(
        { ...counted, media_timeout_seconds: (this.host.media.mediaTimeoutMs ?? 0) / 1000 },
        'no RTP or RTCP from the far end: hanging up (media_timeout)',
      );
    void this.hangup('media_timeout');
  }

  /** The far end hung up (BYE) or the dialog died; the leg has answered it already. */
  async remoteEnded(): Promise<void> {
    this.gone.abort(new Error('the caller hung up'));
    if (this.transfer === 'bridged' || this.ended) return;
    // A carrier that took our REFER often hangs up before its final NOTIFY: that BYE is the
    // transfer succeeding (transferred), not the caller hanging up. transferTo decides.
    if (this.transfer === 'referring') {
      this.goneWhileReferring = true;
      return;
    }
    this.ended = true;
    this.resolveOver();
    this.o.media.close();
    void this.session?.end(CALLER_HANGUP);
    await this.o
      .end('remote')
      .catch((err: unknown) =>
        this.host.deps.logger.error({ err, call_id: this.id }, 'could not record the end of a call'),
      );
    void this.teardown();
  }

  private async teardown(): Promise<void> {
    const { deps } = this.host;
    this.timer.stop();
    this.o.leg.onRequest(undefined);
    // The call is over: its recording ends and its RTP port and frame ticks go now, not after the
    // session, the metering and the channel's close. Those can wait minutes behind a speech
    // recogniser's backlog, and meanwhile the node would send idle frames for calls long gone and
    // run out of ports.
    const media = (async () => {
      await stopCallRecording(this.id).catch((err: unknown) =>
        deps.logger.error({ err, call_id: this.id }, 'could not finish a call recording'),
      );
      await this.o.rtp.close().catch(() => undefined);
    })();
    try {
      if (this.session) await this.session.done;
      const own = this.channel?.usage() ?? { ttsCharacters: 0, sttSeconds: 0 };
      // A warm transfer's announcement is spoken by the same TTS for this call: it counts too.
      const usage = { ...own, ttsCharacters: own.ttsCharacters + this.announcedCharacters };
      // Metering is best effort here: a store that fails it must not keep the channel open.
      await this.records
        .meterMedia(this.o.call, usage, this.host.providers)
        .catch((err: unknown) => deps.logger.error({ err, call_id: this.id }, 'could not meter a call'));
      await this.channel?.close();
    } catch (err) {
      deps.logger.error({ err, call_id: this.id }, 'could not close a call');
    } finally {
      await media;
      this.resolveOver(); // whatever way it ended, a closed call is over too
      this.resolveClosed();
    }
  }

  private async transferTo(destination: string, options: TransferOptions): Promise<TransferOutcome> {
    const transferer = this.host.transferer;
    if (!transferer || this.ended) return TRANSFER_UNAVAILABLE;
    const ctx = this.transferContext();
    if (options.mode === 'blind') this.transfer = 'referring';
    let result: Awaited<ReturnType<typeof transferer>>;
    try {
      result = await transferer(ctx, destination, options);
    } finally {
      if (this.transfer === 'referring') this.transfer = 'none';
    }
    if (result.status !== 'success') {
      if (this.goneWhileReferring) void this.remoteEnded();
      return { status: result.status, ...(result.reason ? { reason: result.reason } : {}) };
    }
    if (result.bridged) {
      this.transfer = 'bridged';
      void result.bridged.finally(() => {
        this.transfer = 'none';
        void this.hangup('transfer');
      });
    } else {
      void this.hangup('transfer');
    }
    return { status: 'success' };
  }

  private transferContext(): TransferContext {
    return {
      leg: this.o.leg,
      restoreRequests: () => this.o.leg.onRequest(this.requests),
      rtp: this.o.rtp,
      call: this.o.call,
      deps: this.host.deps,
      records: this.records,
      stack: this.host.stack,
      local: this.host.local,
      ports: this.host.media.ports,
      ...(this.host.media.pacer ? { pacer: this.host.media.pacer } : {}),
      ...(this.host.media.mediaTimeoutMs ? { mediaTimeoutMs: this.host.media.mediaTimeoutMs } : {}),
      ...(this.host.media.mediaHoldTimeoutMs
        ? { mediaHoldTimeoutMs: this.host.media.mediaHoldTimeoutMs }
        : {}),
      ...(this.host.pace ? { pace: this.host.pace } : {}),
      ...(this.host.resolve ? { resolve: this.host.resolve } : {}),
      callerGone: this.gone.signal,
      suspendMedia: () => {
        this.o.media.stopPlayback();
        this.o.media.suspended = true;
      },
      resumeMedia: () => {
        this.o.media.suspended = false;
      },
      meterTts: (characters) => {
        this.announcedCharacters += characters;
      },
      callerDigits: (listener) => this.o.media.divertDigits(listener),
    };
  }

  /**
   * The `dial` node on a phone call: the destination is dialled as a second leg through the trunk
   * of the call's number, or of the registered number `from` names, which is then the caller ID
   * (the dialler: a warm transfer's leg without an announcement) and bridged to the caller; when the
   * dialled party hangs up, the caller gets the workflow back and the node leaves by `answered`.
   * Not answered, busy or failed: the node leaves by that outcome at once. The leg is a call of its
   * own (parent_call_id this call; modules/calls/dial-legs.ts) whose id is the outcome's `callId`.
   */
  private async dialOut(destination: string, options: DialOptions): Promise<DialOutcome> {
    const dialler = this.host.dialler;
    if (!dialler || this.ended) return { status: 'failed', reason: 'dial_unavailable' };
    const ctx = this.transferContext();
    if (options.from !== undefined && options.from !== ourNumber(this.o.call)) {
      // Another registered number as caller ID: the leg leaves through that number's trunk.
      const number = await this.records.numberOf(this.o.call.workspace_id, options.from);
      if (!number) {
        this.host.deps.logger.warn(
          { call_id: this.id, from: options.from },
          'dial: from is not a registered number',
        );
        return { status: 'failed', reason: 'from_not_registered' };
      }
      ctx.call = {
        ...ctx.call,
        direction: 'outbound',
        from_number: number.number,
        phone_number_id: number.id,
      };
    }
    const result = await dialler(ctx, destination, {
      signal: options.signal,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.machineDetection ? { machineDetection: true } : {}),
    });
    const leg = {
      ...(result.callId !== undefined ? { callId: result.callId } : {}),
      ...(result.answeredBy !== undefined ? { answeredBy: result.answeredBy } : {}),
    };
    if (result.status !== 'success') {
      const reason = result.reason ?? '';
      const status = reason === 'no_answer' ? 'no_answer' : reason === 'busy' ? 'busy' : 'failed';
      return { status, ...leg, ...(reason ? { reason } : {}) };
    }
    if (result.bridged) {
      this.transfer = 'dialled';
      await result.bridged.catch(() => undefined);
      this.transfer = 'none';
      if (!this.ended) this.o.media.suspended = false;
    }
    return { status: 'answered', ...leg };
  }

  /** The far end's in-dialog requests other than ACK and BYE. */
  private readonly requests: InDialogHandler = (req, respond) => {
    if (req.method === 'INFO') {
      const press = parseInfoDtmf(getHeader(req, 'Content-Type'), req.body);
      if (press) this.o.media.infoDigit(press.digit);
      respond(200, 'OK');
      return true;
    }
    if (req.method === 'INVITE' || req.method === 'UPDATE') {
      this.offer(req, respond);
      return true;
    }
    if (req.method === 'REFER') {
      // This dialog runs the workflow: the phone party may not hand it to someone else.
      declineRefer(respond, this.host.local.host, 'this call cannot be transferred by REFER');
      return true;
    }
    return false;
  };

  /** A re-INVITE or UPDATE: hold/resume/new address, and the session-timer refresh it carries. */
  private offer(req: SipRequest, respond: Respond): void {
    const timer = decideUasTimer(req);
    if (!timer.ok) return respond(422, timer.reason, [...timer.headers]);
    // We answer this request, so its refresher=uas is us whichever side opened the dialog; a
    // request without timers restarts the one running (RFC 4028 10: any 2xx refreshes).
    this.timer.arm(timerOfTheirRequest(timer.timer) ?? this.timer.state);
    const headers: HeaderInit[] = [['Contact', this.o.contact], ...timer.headers];
    if (req.body.length === 0) {
      if (req.method === 'UPDATE') return respond(200, 'OK', headers);
      // A re-INVITE without an offer gets ours again (the ACK's answer changes nothing here).
      return respond(200, 'OK', [...headers, ['Content-Type', 'application/sdp']], this.o.sdp);
    }
    const origin = { ...this.o.origin, sessionVersion: ++this.sessionVersion };
    const result = answerOffer(new TextDecoder().decode(req.body), this.o.local, origin);
    if (!result.ok) return respond(result.status, result.reason);
    applyAudio(this.o.rtp, result.audio, this.o.codec);
    this.o.codec = { name: result.audio.codec.name, pt: result.audio.codec.pt };
    this.o.sdp = result.sdp;
    respond(200, 'OK', [...headers, ['Content-Type', 'application/sdp']], result.sdp);
  }
}
