// One browser's peer connection on the service's side, over node-datachannel (libdatachannel:
// ICE, DTLS-SRTP and SCTP in native code; RTP arrives and leaves as whole packets). It answers
// the browser's offer with host candidates on WEBRTC_HOST, sends what the voice pipeline plays as
// 20 ms frames on the shared frame clock (the same RtpSender a SIP call uses: Opus, or PCMU/PCMA
// when the browser ranks them first), plays the browser's audio out of the same jitter buffer and
// receiver as a call, and turns keypad presses into digits: `{"type":"dtmf"}` messages on any
// data channel, and RFC 4733 events when the browser sends them (RTCDTMFSender).
//
// The track is made from the offer before the remote description is set: a track created by the
// library from the offer copies the browser's stream id and the answer then has no a=ssrc, and
// Chromium drops every packet of ours.
//
// The connection counts as up (media starts, and the pipeline's first prompt is played) only once
// the connection is 'connected' AND the audio track is open: libdatachannel opens tracks on its
// own thread after DTLS is up, and a packet sent on a track not yet open is dropped, so a prompt
// started on 'connected' alone could lose its first words (a cached greeting starts at once).
import nodeDataChannel, { type DataChannel, type PeerConnection, type Track } from 'node-datachannel';
import type { AudioCodec } from '../audio/codecs/audio-codec.js';
import { G711Codec } from '../audio/codecs/g711.js';
import { OpusCodec } from '../audio/codecs/opus.js';
import { PipelineCodec } from '../audio/codecs/pipeline-codec.js';
import { WebPeerError, type WebPeer, type WebPeerEnd } from '../channels/web-media.js';
import type { Clock, TimerHandle } from '../shared/clock.js';
import { Listeners } from '../shared/listeners.js';
import type { Logger } from '../shared/logger.js';
import { isRtcp } from '../telephony/media/rtcp.js';
import { decodeRtp, RtpPacket, RtpStatus } from '../telephony/media/rtp-packet.js';
import { MediaReceiver } from '../telephony/media/rtp-receiver.js';
import { RtpSender } from '../telephony/media/rtp-sender.js';
import type { SharedPacer } from '../telephony/media/shared-pacer.js';
import { advertisePublicIp } from './candidates.js';
import { readDataMessage } from './data-messages.js';
import { parseOffer, type AudioOffer } from './offer.js';

export interface WebRtcPeerOptions {
  clock: Clock;
  /** WEBRTC_HOST: the address ICE binds to and offers as host candidates (0.0.0.0: every one). */
  host: string;
  /** WEBRTC_PUBLIC_IP: also advertised, with the same ports, for browsers outside a 1:1 NAT. */
  publicIp?: string;
  /** UDP ports ICE may bind (RTP_PORT_MIN..RTP_PORT_MAX); any when unset. */
  portRange?: { min: number; max: number };
  /** The node's one 20 ms frame clock; each peer runs its own timers without it. */
  pacer?: SharedPacer;
  random?: () => number;
  logger?: Pick<Logger, 'warn'>;
  /** How long `disconnected` (consent lost) may last before the connection counts as failed. */
  disconnectedGraceMs?: number;
}

/** What one peer sent and received, for benchmarks and logs. */
export interface WebRtcPeerStats {
  packetsIn: number;
  packetsOut: number;
  /** Frame times that passed while the frame clock stalled, idle ones included. */
  skippedFrames: number;
  /** Of those, the ones with audio to send: holes the browser hears (frames never sent). */
  holeFrames: number;
  /** Frames dropped because the track was not open (never sent either; none expected). */
  notOpenDrops: number;
  rtcpIn: number;
  malformed: number;
}

const DEFAULT_GRACE_MS = 5000;
const MAX_CANDIDATE_CHARS = 1024;

type State = 'new' | 'answering' | 'answered' | 'ended';

export class WebRtcPeer implements WebPeer {
  private state: State = 'new';
  private pc: PeerConnection | null = null;
  private track: Track | null = null;
  private offer: AudioOffer | null = null;
  private sender: RtpSender | null = null;
  private receiver: MediaReceiver | null = null;
  private readonly packet = new RtpPacket();
  private readonly channels = new Set<DataChannel>();
  private readonly audioListeners = new Listeners<Int16Array>();
  private readonly digitListeners = new Listeners<string>();
  private readonly endListeners = new Set<(how: WebPeerEnd) => void>();
  private connectedValue = false;
  /** The connection reported 'connected'; media waits for the track as well. */
  private iceUp = false;
  private ssrc = 0;
  private readonly connectedWaiters: ((up: boolean) => void)[] = [];
  private graceTimer: TimerHandle | null = null;
  private closedByUs = false;
  readonly counters = { packetsIn: 0, rtcpIn: 0, malformed: 0, notOpenDrops: 0 };

  constructor(private readonly options: WebRtcPeerOptions) {}

  get connected(): boolean {
    return this.connectedValue;
  }

  get stats(): WebRtcPeerStats {
    const s = this.sender?.stats;
    return {
      packetsIn: this.counters.packetsIn,
      // The sender counts what it handed over; a packet the track dropped never went out.
      packetsOut: (s?.packets ?? 0) - this.counters.notOpenDrops,
      skippedFrames: s?.skippedFrames ?? 0,
      holeFrames: s?.holeFrames ?? 0,
      notOpenDrops: this.counters.notOpenDrops,
      rtcpIn: this.counters.rtcpIn,
      malformed: this.counters.malformed,
    };
  }

  async answer(offerSdp: string): Promise<string> {
    if (this.state === 'ended') throw new WebPeerError('session_ended', 'The peer connection has ended.');
    if (this.state !== 'new') {
      throw new WebPeerError(
        'renegotiation_unsupported',
        'This session already has a peer connection; a second offer is not supported. End the session and join again to change devices.',
      );
    }
    const offer = parseOffer(offerSdp);
    this.state = 'answering';
    this.offer = offer.audio;
    const { options } = this;
    const pc = new nodeDataChannel.PeerConnection('switchboard', {
      iceServers: [],
      bindAddress: options.host,
      ...(options.portRange
        ? { portRangeBegin: options.portRange.min, portRangeEnd: options.portRange.max }
        : {}),
    });
    this.pc = pc;
    // Every callback is set before the description: libdatachannel does not replay what it fired.
    const gathered = new Promise<void>((resolve) => {
      pc.onGatheringStateChange((s) => {
        if (s === 'complete') resolve();
      });
    });
    pc.onStateChange((s) => this.onState(s));
    pc.onDataChannel((dc) => this.addDataChannel(dc));
    const codec = this.codecFor(offer.audio);
    this.track = pc.addTrack(this.describeTrack(offer.audio));
    this.track.onMessage((buf) => this.onPacket(buf));
    this.track.onOpen(() => this.mediaUp());
    this.startMedia(codec, offer.audio);
    try {
      pc.setRemoteDescription(offer.sdp, 'offer');
    } catch (err) {
      this.teardown();
      this.state = 'new';
      this.offer = null;
      throw new WebPeerError('invalid_sdp', `The offer was refused: ${(err as Error).message}`);
    }
    if (pc.gatheringState() !== 'complete') await gathered;
    // close() may have run while candidates were gathered.
    if ((this.state as State) === 'ended')
      throw new WebPeerError('session_ended', 'The peer connection has ended.');
    this.state = 'answered';
    const local = pc.localDescription();
    if (!local) throw new WebPeerError('internal_error', 'The peer connection produced no answer.');
    return advertisePublicIp(local.sdp, options.publicIp);
  }

  addRemoteCandidate(candidate: string | null, sdpMid?: string): void {
    if (this.state === 'new' || !this.pc || !this.offer) {
      throw new WebPeerError('no_offer', 'Send webrtc_offer before ice_candidate.');
    }
    if (this.state === 'ended') return;
    // null (or an empty candidate) ends the browser's candidates; libdatachannel needs no word.
    if (candidate === null || candidate.trim() === '') return;
    if (candidate.length > MAX_CANDIDATE_CHARS) {
      throw new WebPeerError(
        'invalid_candidate',
        `candidate must be at most ${MAX_CANDIDATE_CHARS} characters.`,
      );
    }
    try {
      this.pc.addRemoteCandidate(candidate, sdpMid ?? this.offer.mid);
    } catch (err) {
      throw new WebPeerError('invalid_candidate', `The candidate was refused: ${(err as Error).message}`);
    }
  }

  whenConnected(): Promise<boolean> {
    if (this.connectedValue) return Promise.resolve(true);
    if (this.state === 'ended') return Promise.resolve(false);
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  onEnd(listener: (how: WebPeerEnd) => void): () => void {
    this.endListeners.add(listener);
    return () => void this.endListeners.delete(listener);
  }

  sendData(message: string): void {
    if (this.state === 'ended') return;
    for (const dc of this.channels) if (dc.isOpen()) dc.sendMessage(message);
  }

  // CallMedia: the voice pipeline's side.

  play(pcm: Int16Array): void {
    if (this.state !== 'ended') this.sender?.enqueue(pcm);
  }

  get queuedMs(): number {
    return this.state === 'ended' || !this.sender ? 0 : this.sender.queuedMs;
  }

  stopPlayback(): void {
    this.sender?.clear();
  }

  onAudio(listener: (pcm: Int16Array) => void): () => void {
    return this.audioListeners.add(listener);
  }

  onDigit(listener: (digit: string) => void): () => void {
    return this.digitListeners.add(listener);
  }

  close(): void {
    if (this.state === 'ended') return;
    this.closedByUs = true;
    this.end(null);
  }

  private codecFor(audio: AudioOffer): AudioCodec {
    if (audio.codec === 'opus') return new OpusCodec({ payloadType: audio.payloadType });
    return new G711Codec(audio.codec === 'PCMU' ? 'ulaw' : 'alaw');
  }

  private describeTrack(audio: AudioOffer): nodeDataChannel.Audio {
    const media = new nodeDataChannel.Audio(audio.mid, 'SendRecv');
    if (audio.codec === 'opus') media.addOpusCodec(audio.payloadType);
    else media.addAudioCodec(audio.payloadType, `${audio.codec}/8000`);
    if (audio.telephoneEventPayloadType !== null) {
      const rate = audio.codec === 'opus' ? 48000 : 8000;
      media.addAudioCodec(audio.telephoneEventPayloadType, `telephone-event/${rate}`);
    }
    const random = this.options.random ?? Math.random;
    const ssrc = Math.floor(random() * 0xfffffffe) + 1;
    const id = ssrc.toString(16);
    media.addSSRC(ssrc, `switchboard-${id}`, `switchboard-${id}`, `voice-${id}`);
    this.ssrc = ssrc;
    return media;
  }

  private startMedia(codec: AudioCodec, audio: AudioOffer): void {
    const { clock, pacer } = this.options;
    const random = this.options.random ?? Math.random;
    const eventPt = audio.telephoneEventPayloadType ?? -1;
    this.sender = new RtpSender({
      clock,
      codec: new PipelineCodec(codec),
      ssrc: this.ssrc,
      sequence: Math.floor(random() * 0x10000),
      timestamp: Math.floor(random() * 0x100000000),
      payloadType: audio.payloadType,
      telephoneEventPayloadType: eventPt,
      // Nothing goes out between prompts (browsers conceal the gap, as with Opus DTX): at 100
      // sessions that is thousands of packets a second saved while the workflow listens.
      idle: 'pause',
      // An answer's first frame leaves when it is queued, not at the next tick (up to 20 ms).
      startAtOnce: true,
      // The sender starts only once the track is open (mediaUp); a drop here is counted.
      transmit: (packet) => {
        if (this.track?.isOpen()) this.track.sendMessageBinary(packet);
        else this.counters.notOpenDrops++;
      },
      ...(pacer ? { pacer } : {}),
      onError: (err) => this.options.logger?.warn({ err }, 'webrtc: sending audio failed'),
    });
    this.receiver = new MediaReceiver({
      clock,
      codec: new PipelineCodec(codec),
      payloadType: audio.payloadType,
      telephoneEventPayloadType: eventPt,
      ...(pacer ? { pacer } : {}),
      // Browsers pause in silence (Opus DTX): the listener hears those pauses as silence.
      fillPauses: true,
      // What hears the browser is a recogniser and a VAD, not an ear: frames go on as they come,
      // so an end of turn is not held up by a playout buffer.
      handOnArrival: true,
      onAudio: (pcm) => this.audioListeners.emit(pcm),
      onDigit: (event) => this.digit(event.digit),
      onError: (err) => this.options.logger?.warn({ err }, 'webrtc: a listener of the browser audio failed'),
    });
  }

  private onPacket(buf: Buffer): void {
    if (this.state === 'ended' || !this.receiver) return;
    if (isRtcp(buf)) {
      this.counters.rtcpIn++;
      return;
    }
    if (decodeRtp(buf, this.packet) !== RtpStatus.Ok) {
      this.counters.malformed++;
      return;
    }
    this.counters.packetsIn++;
    this.receiver.handle(this.packet, this.options.clock.monotonic());
  }

  private addDataChannel(dc: DataChannel): void {
    if (this.state === 'ended') return dc.close();
    this.channels.add(dc);
    dc.onClosed(() => this.channels.delete(dc));
    dc.onMessage((msg) => {
      if (this.state === 'ended') return;
      const read = readDataMessage(msg);
      if (read.ok) {
        for (const d of read.digits) this.digit(d);
      } else if (dc.isOpen()) {
        dc.sendMessage(JSON.stringify({ type: 'error', code: read.code, message: read.message }));
      }
    });
  }

  private digit(digit: string): void {
    this.digitListeners.emit(digit);
  }

  private onState(s: string): void {
    if (this.state === 'ended') return;
    if (s === 'connected') {
      this.clearGrace();
      this.iceUp = true;
      this.mediaUp();
    } else if (s === 'disconnected') {
      // Consent lost: a network change may bring it back; if not, it has failed.
      this.graceTimer ??= this.options.clock.setTimeout(() => {
        this.graceTimer = null;
        this.end('failed');
      }, this.options.disconnectedGraceMs ?? DEFAULT_GRACE_MS);
    } else if (s === 'failed') {
      this.end('failed');
    } else if (s === 'closed') {
      this.end('closed');
    }
  }

  /**
   * Media starts once both the connection and the track are up, whichever is told last: the
   * track's open event reaches JavaScript after the fact (up to 100 ms after 'connected' measured
   * here, with the track already open), so isOpen() is asked first rather than waiting for it.
   */
  private mediaUp(): void {
    if (this.state === 'ended' || this.connectedValue || !this.iceUp) return;
    if (!this.track?.isOpen()) return; // its onOpen calls again
    this.connectedValue = true;
    this.sender?.start();
    this.receiver?.start();
    for (const w of this.connectedWaiters.splice(0)) w(true);
  }

  private clearGrace(): void {
    if (this.graceTimer) this.options.clock.clearTimeout(this.graceTimer);
    this.graceTimer = null;
  }

  /** Ends once: stops media, closes the connection, and tells the listeners unless we closed it. */
  private end(how: WebPeerEnd | null): void {
    if (this.state === 'ended') return;
    const wasAnswered = this.state === 'answered' || this.state === 'answering';
    this.state = 'ended';
    this.clearGrace();
    this.teardown();
    for (const w of this.connectedWaiters.splice(0)) w(false);
    const listeners = [...this.endListeners];
    this.endListeners.clear();
    this.audioListeners.clear();
    this.digitListeners.clear();
    if (how && wasAnswered && !this.closedByUs) for (const l of listeners) l(how);
  }

  private teardown(): void {
    this.sender?.stop();
    this.receiver?.stop();
    this.sender?.clear();
    for (const dc of this.channels) dc.close();
    this.channels.clear();
    const pc = this.pc;
    this.pc = null;
    this.track = null;
    this.connectedValue = false;
    this.iceUp = false;
    try {
      pc?.close();
    } catch {
      // Closing an already failed connection may throw; it is gone either way.
    }
  }
}
