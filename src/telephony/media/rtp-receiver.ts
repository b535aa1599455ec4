// The receiving half of a call's media: takes decoded RTP packets from the session, keeps RFC 3550
// statistics for RTCP, sends telephone-events to the DTMF receiver and audio through the jitter
// buffer, and on its own 20 ms playout clock hands pipeline-rate PCM frames to the call (a
// concealed frame when a packet is missing, nothing while the buffer refills or the far end is
// silent). One remote source plays at a time: another SSRC takes over only once the current one
// has gone quiet (a re-INVITE to another media server, a transfer), so two interleaved sources
// never starve playout by restarting the buffer on every packet.

import type { Clock } from '../../shared/clock.js';
import { FRAME_MS } from '../../audio/codecs/audio-codec.js';
import type { PipelineCodec } from '../../audio/codecs/pipeline-codec.js';
import { DtmfReceiver, type DigitEnd, type DigitEvent } from './dtmf.js';
import { JitterBuffer, type JitterBufferOptions, type JitterOutput } from './jitter-buffer.js';
import { Pacer } from './pacer.js';
import type { FrameTicker, SharedPacer } from './shared-pacer.js';
import type { RtpPacket } from './rtp-packet.js';
import { ReceptionStats } from './rtp-stats.js';

export interface AudioFrameInfo {
  /** True when the frame stands in for a lost packet. */
  concealed: boolean;
  /** True when the frame is silence standing in for a pause of the sender (fillPauses). */
  pause?: boolean;
  /** RTP sequence number of the frame (of the missing packet when concealed). */
  sequence: number;
}

export interface MediaReceiverOptions {
  clock: Clock;
  codec: PipelineCodec;
  /** Payload types agreed in SDP. */
  payloadType?: number;
  telephoneEventPayloadType?: number;
  jitter?: Omit<JitterBufferOptions, 'clockRate'>;
  /** Play out with the node's other calls on one timer instead of a timer of its own. */
  pacer?: SharedPacer;
  onAudio?: (pcm: Int16Array, info: AudioFrameInfo) => void;
  onDigit?: (digit: DigitEvent) => void;
  onDigitEnd?: (digit: DigitEnd) => void;
  /**
   * Hands a silent frame (info.pause) on every tick the buffer has nothing while the source has
   * started: a sender that pauses (Opus DTX sends a packet every 400 ms or so in silence,
   * silence suppression none) is then heard as the silence it is, in real time, so a VAD's end of
   * turn and a silence timeout count it, instead of seeing no audio at all and holding the turn
   * open. Default off (calls hand nothing while the far end is silent).
   */
  fillPauses?: boolean;
  /**
   * For a listener rather than a loudspeaker (speech recognition, a VAD): a frame is handed on as
   * soon as it is next in sequence, and the clock hands out only what did not come in time (a
   * concealed loss, fillPauses' silence), each tick owing one frame less for every frame that went
   * ahead of it. A frame that came just in time saves the buffer's wait (a frame or two); one that
   * comes late after the clock filled its place costs 20 ms of delay from then on, as a jitter
   * buffer growing would. Default off: playout on the clock, behind the jitter buffer.
   */
  handOnArrival?: boolean;
  /** Errors thrown by the callbacks above land here instead of on the timer. */
  onError?: (err: Error) => void;
  /**
   * How long the current source must be silent before another SSRC takes over; until then the
   * other's packets are strays. Default 100 ms (five frames), so a source that switches with no
   * pause loses at most that much, and one interleaved with another keeps playing.
   */
  sourceHoldMs?: number;
}

export interface ReceiverCounters {
  /** Audio packets accepted past probation. */
  audioPackets: number;
  eventPackets: number;
  /** Packets of a payload type this call did not agree on. */
  unknownPayload: number;
  /** Packets of a source still on probation or out of window (RFC 3550 A.1). */
  rejected: number;
  /** Times the remote SSRC changed. */
  sourceChanges: number;
  /** Packets of another SSRC while the current source was still sending (dropped). */
  strayPackets: number;
}

export const DEFAULT_SOURCE_HOLD_MS = 100;

export class MediaReceiver {
  readonly counters: ReceiverCounters = {
    audioPackets: 0,
    eventPackets: 0,
    unknownPayload: 0,
    rejected: 0,
    sourceChanges: 0,
    strayPackets: 0,
  };
  private remoteSsrc: number | null = null;
  /** When the current source's last packet came (monotonic ms). */
  private lastFromSource = 0;
  private stats: ReceptionStats | null = null;
  private jitter: JitterBuffer;
  private dtmf: DtmfReceiver;
  private readonly pacer: FrameTicker;
  private payloadType: number;
  private codec: PipelineCodec;
  private eventPayloadType: number;
  /** The frame fillPauses hands out (zeroed before each use). */
  private silence: Int16Array | null = null;
  /** Frames handed on ahead of the clock (handOnArrival): its next ticks owe that many fewer. */
  private ahead = 0;

  constructor(private readonly options: MediaReceiverOptions) {
    this.codec = options.codec;
    const codec = options.codec.codec;
    this.payloadType = options.payloadType ?? codec.payloadType;
    this.eventPayloadType = options.telephoneEventPayloadType ?? 101;
    this.jitter = this.newJitterBuffer();
    this.dtmf = this.newDtmfReceiver();
    const onTick = () => this.playout();
    this.pacer = options.pacer?.subscribe(onTick) ?? new Pacer(options.clock, { periodMs: FRAME_MS }, onTick);
  }

  /** The remote source's statistics, for receiver reports; null before the first packet. */
  get reception(): ReceptionStats | null {
    return this.stats;
  }

  get ssrc(): number | null {
    return this.remoteSsrc;
  }

  get jitterBuffer(): JitterBuffer {
    return this.jitter;
  }

  /**
   * Switches codec mid-call. Statistics, the jitter buffer and the digit reader start again, as
   * their units are the old clock rate; telephone-events keep their payload type unless
   * setTelephoneEventPayloadType says otherwise.
   */
  setCodec(codec: PipelineCodec, payloadType = codec.codec.payloadType): void {
    this.codec = codec;
    this.payloadType = payloadType;
    this.remoteSsrc = null;
    this.stats = null;
    this.jitter = this.newJitterBuffer();
    this.dtmf = this.newDtmfReceiver();
  }

  /** The telephone-event payload type the negotiation chose (the 48 kHz one beside Opus). */
  setTelephoneEventPayloadType(payloadType: number): void {
    this.eventPayloadType = payloadType;
  }

  start(): void {
    this.pacer.start();
  }

  stop(): void {
    this.pacer.stop();
  }

  /** Takes one received packet; `arrivalMs` is monotonic. The packet's buffer must stay untouched. */
  handle(p: RtpPacket, arrivalMs: number): void {
    const pt = p.payloadType;
    if (pt !== this.payloadType && pt !== this.eventPayloadType) {
      this.counters.unknownPayload++;
      return;
    }
    if (this.remoteSsrc !== p.ssrc) {
      const hold = this.options.sourceHoldMs ?? DEFAULT_SOURCE_HOLD_MS;
      if (this.remoteSsrc !== null && arrivalMs - this.lastFromSource < hold) {
        // The current source is still sending: this one is a stray (a second stream, a leftover
        // of the previous one), not a reason to throw away the buffer.
        this.counters.strayPackets++;
        return;
      }
      if (this.remoteSsrc !== null) this.counters.sourceChanges++;
      // A new source (re-INVITE to another media server, a transfer): fresh statistics and buffer.
      this.remoteSsrc = p.ssrc;
      this.stats = new ReceptionStats(this.codec.codec.clockRate);
      this.jitter = this.newJitterBuffer();
      this.ahead = 0;
    }
    this.lastFromSource = arrivalMs;
    const stats = this.stats!;
    if (!stats.updateSeq(p.sequenceNumber)) {
      // Probation: the first packet of a source is held back by A.1, but a DTMF start may be it.
      if (pt === this.eventPayloadType) this.dtmf.handle(p.timestamp, p.payload());
      this.counters.rejected++;
      return;
    }
    if (pt === this.eventPayloadType) {
      this.counters.eventPackets++;
      this.dtmf.handle(p.timestamp, p.payload());
      // Audio pauses during a press; its sequence numbers are not lost audio.
      this.jitter.skip(p.sequenceNumber);
      return;
    }
    this.counters.audioPackets++;
    stats.updateJitter(p.timestamp, arrivalMs);
    this.jitter.push(p.sequenceNumber, p.timestamp, p.payload(), p.marker, arrivalMs);
    if (this.options.handOnArrival) this.handArrived();
  }

  /** handOnArrival: every frame that is next in sequence, now. */
  private handArrived(): void {
    for (let out = this.jitter.takeArrived(); out; out = this.jitter.takeArrived()) {
      this.ahead++;
      this.deliver(out);
    }
  }

  private playout(): void {
    if (this.ahead > 0) {
      this.ahead--;
      return;
    }
    this.deliver(this.jitter.pull());
    // Frames held behind a loss the clock just concealed go on at once.
    if (this.options.handOnArrival) this.handArrived();
  }

  private deliver(out: JitterOutput): void {
    if (!this.options.onAudio) return; // nobody listens: skip the decode
    const codec = this.codec;
    if (out.kind === 'empty') {
      if (!this.options.fillPauses || this.remoteSsrc === null) return;
      this.silence ??= new Int16Array(codec.conceal().length);
      this.silence.fill(0);
      try {
        this.options.onAudio(this.silence, { concealed: false, pause: true, sequence: -1 });
      } catch (err) {
        this.options.onError?.(err as Error);
      }
      return;
    }
    let pcm: Int16Array | null = null;
    if (out.kind === 'frame') {
      try {
        pcm = codec.decode(out.payload);
      } catch {
        // A payload the decoder rejects is a lost frame, not a reason to stop the call.
      }
    }
    const concealed = pcm === null;
    try {
      this.options.onAudio?.(pcm ?? codec.conceal(), { concealed, sequence: out.seq });
    } catch (err) {
      // The consumer's failure must not stop the playout clock of this call or crash the process.
      this.options.onError?.(err as Error);
    }
  }

  private newJitterBuffer(): JitterBuffer {
    return new JitterBuffer({ clockRate: this.codec.codec.clockRate, ...this.options.jitter });
  }

  private newDtmfReceiver(): DtmfReceiver {
    return new DtmfReceiver(
      this.codec.codec.clockRate,
      (d) => this.options.onDigit?.(d),
      (d) => this.options.onDigitEnd?.(d),
    );
  }
}
