// The web channel: a browser on the realtime socket, with or without a microphone. Until the
// browser sends a WebRTC offer it is a text line (typed turns, `dtmf` frames, output as
// `assistant_text`); once the offer is answered and the peer connection is up, speech and
// listening run on the same voice pipeline as a phone call (voice/voice-pipeline.ts: TTS playback
// with barge-in, STT turn taking, the digit buffer, usage, voice settings), over a WebLine in
// place of a call's RTP. Typed turns still count while it speaks.
//
// A say that starts while the offer is being answered waits for the connection, so the greeting
// of a session joined with an offer is heard rather than shown. When the connection fails or the
// browser closes it, the session host ends the session (onMediaEnded).
//
// A `dial` node on a session with a peer connection places its leg through `dialler` (the SIP
// node of this process, given by the session host) and, once answered, the browser talks to the
// dialled party until either side leaves; then the workflow has the line again. Without a peer
// connection (typed turns only) the interpreter keeps telephony nodes off the channel: `dial`
// leaves by `failed` with `channel_unsupported`. The dialled party's key presses are shown to the
// browser (web-line.ts), not taken as the workflow's input.
import type { SttProvider } from '../providers/stt/stt.types.js';
import type { TtsProvider } from '../providers/tts/tts.types.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { VoicePipeline, type VoiceUsage } from './voice/voice-pipeline.js';
import {
  abortError,
  type Channel,
  type ChannelCapabilities,
  type DialOptions,
  type DialOutcome,
  type DigitOptions,
  type ListenOptions,
  type SayOptions,
  type SayResult,
  type TransferOutcome,
  type UserTurn,
} from './channel.js';
import { TextChannel } from './text-channel.js';
import { WebLine } from './web-line.js';
import {
  WebPeerError,
  type IceServer,
  type WebPeer,
  type WebPeerEnd,
  type WebPeerFactory,
  type WebLegDialler,
  type WebRtcSignalling,
} from './web-media.js';

export interface WebChannelOptions {
  clock: Clock;
  /** Makes the peer connection for the browser's offer. */
  peers: WebPeerFactory;
  tts: TtsProvider;
  /** Null when listening is not wired: spoken turns are then not heard (typed ones are). */
  stt: SttProvider | null;
  voice: string;
  language?: string;
  logger?: Pick<Logger, 'warn'>;
  endpointingMs?: number;
  /**
   * The STUN/TURN servers handed to the browser in each `ready` frame: a list, or a function that
   * makes them when asked (TURN credentials minted fresh for every socket).
   */
  iceServers?: readonly IceServer[] | (() => readonly IceServer[]);
  /** Places a `dial` node's leg (the SIP node of this process); without it dials fail `sip_unavailable`. */
  dialler?: WebLegDialler;
}

export type WebChannelUsage = VoiceUsage;

export class WebChannel implements Channel, WebRtcSignalling {
  readonly kind = 'web' as const;
  readonly pipeline: VoicePipeline;
  private readonly line = new WebLine();
  /** Typed turns, as on any text line. */
  private readonly text: TextChannel;
  private peer: WebPeer | null = null;
  private readonly mediaEnded = new Set<(how: WebPeerEnd) => void>();
  /** One per dial under way: aborted when the browser leaves or the session closes. */
  private readonly legs = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: WebChannelOptions) {
    this.text = new TextChannel({ clock: options.clock, kind: 'web', simulateTelephony: false });
    this.pipeline = new VoicePipeline({ ...options, media: this.line });
  }

  /** The ICE servers for the browser, made now. */
  get iceServers(): readonly IceServer[] {
    const { iceServers } = this.options;
    return typeof iceServers === 'function' ? iceServers() : (iceServers ?? []);
  }

  /**
   * Spoken turns count (a keypad node listens for spoken digits) while the browser's audio is up;
   * telephony (the `dial` node; transfers answer `failed`) once the browser has offered audio.
   */
  get capabilities(): ChannelCapabilities {
    return { dtmf: true, telephony: this.peer !== null, simulated: false, speech: this.hasAudio };
  }

  /** True while a peer connection carries the session's audio. */
  get hasAudio(): boolean {
    return this.peer?.connected ?? false;
  }

  // WebRtcSignalling: the realtime socket's webrtc_offer and ice_candidate frames.

  async acceptOffer(sdp: string): Promise<string> {
    if (this.closed) throw new WebPeerError('session_ended', 'The session has ended.');
    if (this.peer) {
      throw new WebPeerError(
        'renegotiation_unsupported',
        'This session already has a peer connection; a second offer is not supported. End the session and join again to change devices.',
      );
    }
    const peer = this.options.peers();
    this.peer = peer;
    let answer: string;
    try {
      answer = await peer.answer(sdp);
    } catch (err) {
      // A refused offer leaves the session as it was: another offer may follow.
      peer.close();
      if (this.peer === peer) this.peer = null;
      throw err;
    }
    if (this.closed || this.peer !== peer) {
      peer.close();
      throw new WebPeerError('session_ended', 'The session has ended.');
    }
    this.line.attach(peer);
    peer.onEnd((how) => {
      this.endLegs();
      this.line.detach();
      for (const l of [...this.mediaEnded]) l(how);
    });
    return answer;
  }

  whenMediaConnected(): Promise<boolean> {
    return this.peer ? this.peer.whenConnected() : Promise.resolve(false);
  }

  addIceCandidate(candidate: string | null, sdpMid?: string): void {
    if (!this.peer) throw new WebPeerError('no_offer', 'Send webrtc_offer before ice_candidate.');
    this.peer.addRemoteCandidate(candidate, sdpMid);
  }

  /** Called once when the browser's peer connection fails or closes. */
  onMediaEnded(listener: (how: WebPeerEnd) => void): () => void {
    this.mediaEnded.add(listener);
    return () => void this.mediaEnded.delete(listener);
  }

  // SessionInput: frames of the realtime socket.

  pushText(text: string): void {
    this.text.pushText(text);
  }

  pushDtmf(digits: string): void {
    for (const d of digits) this.line.pushDigit(d);
  }

  // Channel.

  async say(text: string, options: SayOptions): Promise<SayResult> {
    if (options.signal.aborted) throw abortError(options.signal);
    if (this.peer && !this.peer.connected) await this.race(this.peer.whenConnected(), options.signal);
    if (this.peer?.connected) return this.pipeline.say(text, options);
    return this.text.say(text, options);
  }

  async listen(options: ListenOptions): Promise<UserTurn | null> {
    if (options.signal.aborted) throw abortError(options.signal);
    const peer = this.peer;
    if (!peer) return this.text.listen(options);
    // Voice: the first of a typed turn and a spoken one; the pipeline owns the silence timeout
    // (it knows when someone is still speaking). A connection still being set up is waited for.
    const done = new AbortController();
    const stop = (): void => done.abort(options.signal.reason);
    options.signal.addEventListener('abort', stop, { once: true });
    const typed = this.text.listen({ signal: done.signal });
    const spoken = peer
      .whenConnected()
      .then((up) =>
        up
          ? this.pipeline.listen({ ...options, signal: done.signal })
          : this.text.listen({ ...options, signal: done.signal }),
      );
    try {
      return await Promise.race([typed, spoken]);
    } finally {
      options.signal.removeEventListener('abort', stop);
      if (!done.signal.aborted) done.abort(new DOMException('listen settled', 'AbortError'));
      typed.catch(() => {});
      spoken.catch(() => {});
    }
  }

  nextDigit(options: DigitOptions): Promise<string | null> {
    return this.pipeline.nextDigit(options);
  }

  clearDigits(): void {
    this.pipeline.clearDigits();
  }

  // A browser has no call to hand on: transfers fail as they do on a text line.
  async transfer(): Promise<TransferOutcome> {
    return { status: 'failed', reason: 'channel_unsupported' };
  }

  /**
   * The `dial` node: a connection still being set up is waited for; without audio (it failed or
   * closed) the node leaves by `failed` with `no_audio`. Answered, the browser is bridged to the
   * dialled party and this resolves `answered` when the bridge is over (either side hung up).
   */
  async dial(destination: string, options: DialOptions): Promise<DialOutcome> {
    if (options.signal.aborted) throw abortError(options.signal);
    if (this.peer && !this.peer.connected) await this.race(this.peer.whenConnected(), options.signal);
    if (this.closed || !this.peer?.connected) {
      this.options.logger?.warn(
        { destination },
        'dial: the browser has no audio connection; nothing dialled',
      );
      return { status: 'failed', reason: 'no_audio' };
    }
    const dialler = this.options.dialler;
    if (!dialler) {
      this.options.logger?.warn({ destination }, 'dial: no SIP node in this process; nothing dialled');
      return { status: 'failed', reason: 'sip_unavailable' };
    }
    const gone = new AbortController();
    this.legs.add(gone);
    try {
      const result = await dialler({
        destination,
        ...(options.from !== undefined ? { from: options.from } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.machineDetection ? { machineDetection: true } : {}),
        signal: options.signal,
        line: this.line.legLine(options.onPartyDigit),
        gone: gone.signal,
      });
      const leg = {
        ...(result.callId !== undefined ? { callId: result.callId } : {}),
        ...(result.answeredBy !== undefined ? { answeredBy: result.answeredBy } : {}),
      };
      if (result.status !== 'answered') {
        return { status: result.status, ...leg, ...(result.reason ? { reason: result.reason } : {}) };
      }
      if (result.bridged) {
        // The node's run aborted (session ended, execution limit) hangs the bridged leg up too.
        const hangUp = (): void => gone.abort();
        options.signal.addEventListener('abort', hangUp, { once: true });
        try {
          await result.bridged.catch(() => undefined);
        } finally {
          options.signal.removeEventListener('abort', hangUp);
          this.line.suspended = false;
        }
        if (options.signal.aborted) throw abortError(options.signal);
      }
      return { status: 'answered', ...leg };
    } finally {
      this.legs.delete(gone);
    }
  }

  async hangup(): Promise<void> {
    this.line.stopPlayback();
  }

  /** What this session consumed, for `tts_characters` and `stt_seconds` at its end. */
  usage(): VoiceUsage {
    return this.pipeline.usage();
  }

  /** The session is over: the pipeline goes silent and the peer connection closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.endLegs();
    this.text.closeInput();
    this.line.detach();
    this.peer?.close();
    await this.pipeline.close();
  }

  /** The browser left: every dialled leg is cancelled or hung up. */
  private endLegs(): void {
    for (const gone of this.legs) gone.abort();
  }

  /** `promise`, or a rejection with the signal's reason when it aborts first. */
  private race<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    let onAbort: () => void = () => {};
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
  }
}
