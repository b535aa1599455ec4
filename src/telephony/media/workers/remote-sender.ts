// The RtpSender face of a session whose sender runs in a media worker: what the call code reads
// (queued audio, stats, the RTP timestamp for a sender report) is mirrored from the worker's
// figures, at most 100 ms old, plus what was queued here since; what it does is posted over.
import type { Clock } from '../../../shared/clock.js';
import { PIPELINE_RATE, type PipelineCodec } from '../../../audio/codecs/pipeline-codec.js';
import type { DigitOptions, SenderStats } from '../rtp-sender.js';
import type { WireStats } from './protocol.js';
import type { WorkerSession } from './media-worker-pool.js';

/** What the call code uses of a session's sender, wherever it runs. */
export interface MediaSender {
  readonly stats: SenderStats;
  readonly ssrc: number;
  readonly queuedMs: number;
  paused: boolean;
  /** Sees every audio frame as it goes out (a call's recording). */
  onSent: ((pcm: Int16Array) => void) | null;
  start(): void;
  stop(): void;
  enqueue(pcm: Int16Array): void;
  clear(): void;
  sendDigits(digits: string, options?: DigitOptions): Promise<void>;
  setCodec(codec: PipelineCodec, payloadType?: number): void;
  setTelephoneEventPayloadType(payloadType: number): void;
  timestampAt(monotonicMs: number): number;
}

export class RemoteSender implements MediaSender {
  readonly stats: SenderStats = {
    packets: 0,
    octets: 0,
    eventPackets: 0,
    skippedFrames: 0,
    holeFrames: 0,
    encodeErrors: 0,
  };
  /** Packets the worker put on the wire (the session's rtpOut). */
  rtpOut = 0;
  private session: WorkerSession | null = null;
  private gen = 0;
  /** Samples queued since the last clear, here, and as of the worker's last figures. */
  private queued = 0;
  private last: WireStats | null = null;
  private clockFigures: WireStats | null = null;
  private isPaused = false;
  private tap: ((pcm: Int16Array) => void) | null = null;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    readonly ssrc: number,
  ) {}

  /** The worker session, once bound. */
  attach(session: WorkerSession): void {
    this.session = session;
    if (this.isPaused) session.post({ t: 'paused', id: session.id, paused: true });
    if (this.tap) session.post({ t: 'tap', id: session.id, on: true });
  }

  onStats(s: WireStats): void {
    this.clockFigures = s;
    // Queue figures from before a clear still on their way say nothing of the queue now.
    if (s.gen === this.gen) this.last = s;
    const {
      id: _id,
      rtpOut,
      queuedMs: _q,
      gen: _g,
      received: _r,
      rtpTimestamp: _t,
      clockRate: _c,
      epochMs: _e,
      ...stats
    } = s;
    Object.assign(this.stats, stats);
    this.rtpOut = rtpOut;
  }

  onSentFrames(pcm: Int16Array): void {
    this.tap?.(pcm);
  }

  get onSent(): ((pcm: Int16Array) => void) | null {
    return this.tap;
  }

  set onSent(tap: ((pcm: Int16Array) => void) | null) {
    const was = this.tap !== null;
    this.tap = tap;
    if (this.session && was !== (tap !== null))
      this.session.post({ t: 'tap', id: this.session.id, on: tap !== null });
  }

  get paused(): boolean {
    return this.isPaused;
  }

  set paused(paused: boolean) {
    // Every answer sets the direction: a message only when it changes (the worker starts unpaused).
    if (paused === this.isPaused) return;
    this.isPaused = paused;
    this.session?.post({ t: 'paused', id: this.session.id, paused });
  }

  get queuedMs(): number {
    const last = this.last;
    let workerMs = 0;
    let unsent = this.queued;
    if (last) {
      // The worker's queue as of its figures, run down by the time since (it plays in real time).
      const elapsed = this.isPaused ? 0 : Math.max(0, epochNow() - last.epochMs);
      workerMs = Math.max(0, last.queuedMs - elapsed);
      unsent = this.queued - last.received;
    }
    return workerMs + (Math.max(0, unsent) * 1000) / PIPELINE_RATE;
  }

  start(): void {
    if (this.session) this.session.post({ t: 'start', id: this.session.id });
  }

  stop(): void {
    this.stopped = true;
  }

  enqueue(pcm: Int16Array): void {
    if (pcm.length === 0 || !this.session || this.stopped) return;
    this.queued += pcm.length;
    this.session.enqueue(pcm);
  }

  clear(): void {
    this.gen++;
    this.queued = 0;
    this.last = null;
    this.session?.post({ t: 'clear', id: this.session.id, gen: this.gen });
  }

  sendDigits(digits: string, options: DigitOptions = {}): Promise<void> {
    if (!this.session || this.stopped) return Promise.resolve();
    return this.session.sendDigits(digits, options);
  }

  setCodec(codec: PipelineCodec, payloadType = codec.codec.payloadType): void {
    this.session?.post({ t: 'codec', id: this.session.id, codec: codec.codec.name, payloadType });
  }

  setTelephoneEventPayloadType(payloadType: number): void {
    this.session?.post({ t: 'te', id: this.session.id, payloadType });
  }

  timestampAt(monotonicMs: number): number {
    const last = this.clockFigures;
    if (!last) return 0;
    const at = epochNow() + (monotonicMs - this.clock.monotonic());
    return (last.rtpTimestamp + Math.round(((at - last.epochMs) * last.clockRate) / 1000)) >>> 0;
  }
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}
