// The MediaReceiver face of a session whose receiving half runs in a media worker: the worker's
// jitter buffer plays out and decodes, and the frames (for whoever listens here: speech
// recognition, a recording, answering-machine detection), key presses and figures come in its
// batches, at most 20 ms (frames, presses) or 100 ms (figures) behind.
import type { PipelineCodec } from '../../../audio/codecs/pipeline-codec.js';
import type { DigitEnd, DigitEvent } from '../dtmf.js';
import type { JitterStats } from '../jitter-buffer.js';
import type { AudioFrameInfo, ReceiverCounters } from '../rtp-receiver.js';
import type { ReceptionReportFields } from '../rtp-stats.js';
import type { WireReception, WireStats } from './protocol.js';

/** What the call code and RTCP use of a session's receiver, wherever it runs. */
export interface MediaReceiverView {
  readonly counters: ReceiverCounters;
  readonly jitterBuffer: { readonly stats: JitterStats };
  readonly reception: ReceptionView | null;
  readonly ssrc: number | null;
  setCodec(codec: PipelineCodec, payloadType?: number): void;
  setTelephoneEventPayloadType(payloadType: number): void;
  start(): void;
  stop(): void;
}

/** The remote source's RFC 3550 figures, as a receiver report and the call's metrics read them. */
export interface ReceptionView {
  readonly valid: boolean;
  readonly expected: number;
  readonly received: number;
  readonly extendedMax: number;
  readonly cumulativeLost: number;
  readonly jitter: number;
  readonly jitterMs: number;
  /** Values for the next report block; advances the interval used for the fraction lost. */
  takeReport(): ReceptionReportFields;
}

export interface RemoteReceiverCallbacks {
  onAudio?: (pcm: Int16Array, info: AudioFrameInfo) => void;
  onDigit?: (digit: DigitEvent) => void;
  onDigitEnd?: (digit: DigitEnd) => void;
  onError?: (err: Error) => void;
}

/** A worker's reception snapshot with the fraction-lost interval kept here (RTCP is built here). */
class RemoteReception implements ReceptionView {
  private expectedPrior = 0;
  private receivedPrior = 0;
  constructor(public last: WireReception) {}
  get valid(): boolean {
    return this.last.valid;
  }
  get expected(): number {
    return this.last.expected;
  }
  get received(): number {
    return this.last.received;
  }
  get extendedMax(): number {
    return this.last.extendedMax;
  }
  get cumulativeLost(): number {
    return this.last.cumulativeLost;
  }
  get jitter(): number {
    return this.last.jitter;
  }
  get jitterMs(): number {
    return this.last.jitterMs;
  }
  takeReport(): ReceptionReportFields {
    const { expected, received } = this.last;
    const expectedInterval = expected - this.expectedPrior;
    const receivedInterval = received - this.receivedPrior;
    this.expectedPrior = expected;
    this.receivedPrior = received;
    const lostInterval = expectedInterval - receivedInterval;
    const fractionLost =
      expectedInterval === 0 || lostInterval <= 0 ? 0 : Math.floor((lostInterval * 256) / expectedInterval);
    return {
      fractionLost: Math.min(255, fractionLost),
      cumulativeLost: this.last.cumulativeLost,
      extendedHighestSeq: this.last.extendedMax >>> 0,
      jitter: this.last.jitter,
    };
  }
}

export class RemoteReceiver implements MediaReceiverView {
  readonly counters: ReceiverCounters = {
    audioPackets: 0,
    eventPackets: 0,
    unknownPayload: 0,
    rejected: 0,
    sourceChanges: 0,
    strayPackets: 0,
  };
  readonly jitterBuffer: { stats: JitterStats } = {
    stats: {
      received: 0,
      played: 0,
      concealed: 0,
      late: 0,
      duplicates: 0,
      dropped: 0,
      underruns: 0,
      resets: 0,
    },
  };
  private remoteSsrc: number | null = null;
  private receptionView: RemoteReception | null = null;
  private stopped = false;

  /**
   * `options` holds the callbacks under the same name MediaReceiver keeps them, so a bridge's tap
   * (bridge.ts tapSession) wraps them the same way on either.
   */
  constructor(readonly options: RemoteReceiverCallbacks) {}

  get reception(): ReceptionView | null {
    return this.receptionView;
  }

  get ssrc(): number | null {
    return this.remoteSsrc;
  }

  /** Codec and payload types go to the worker with the sender's (RtpSession does it). */
  setCodec(): void {}

  setTelephoneEventPayloadType(): void {}

  /** The worker's start message starts its receiver with its sender. */
  start(): void {}

  stop(): void {
    this.stopped = true;
  }

  onStats(s: WireStats): void {
    Object.assign(this.counters, s.receiver);
    Object.assign(this.jitterBuffer.stats, s.jitter);
    if (s.remoteSsrc !== this.remoteSsrc) {
      // A new source: its statistics start again, as MediaReceiver's do.
      this.remoteSsrc = s.remoteSsrc;
      this.receptionView = null;
    }
    if (s.reception) {
      if (this.receptionView) this.receptionView.last = s.reception;
      else this.receptionView = new RemoteReception(s.reception);
    }
  }

  frame(pcm: Int16Array, info: AudioFrameInfo): void {
    if (this.stopped) return;
    try {
      this.options.onAudio?.(pcm, info);
    } catch (err) {
      // A consumer's failure costs one frame, as on the in-process receiver.
      this.options.onError?.(err as Error);
    }
  }

  digit(d: DigitEvent): void {
    if (this.stopped) return;
    try {
      this.options.onDigit?.(d);
    } catch (err) {
      this.options.onError?.(err as Error);
    }
  }

  digitEnd(d: DigitEnd): void {
    if (this.stopped) return;
    try {
      this.options.onDigitEnd?.(d);
    } catch (err) {
      this.options.onError?.(err as Error);
    }
  }
}
