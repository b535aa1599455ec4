// The sending half of a call's media: takes pipeline-rate PCM (queued by TTS or a bridge), cuts it
// into 20 ms frames, encodes and sends one every 20 ms on the Pacer, so RTP timestamps advance by
// exactly one frame per tick and never drift from the monotonic clock. Key presses go out as RFC
// 4733 events in place of audio, on the same clock and the same sequence-number space.

import type { Clock, TimerHandle } from '../../shared/clock.js';
import type { PipelineCodec } from '../../audio/codecs/pipeline-codec.js';
import { FRAME_MS } from '../../audio/codecs/audio-codec.js';
import { planDigit } from './dtmf.js';
import { Pacer } from './pacer.js';
import type { FrameTicker, SharedPacer } from './shared-pacer.js';
import { serializeRtp } from './rtp-packet.js';

export interface RtpSenderOptions {
  clock: Clock;
  codec: PipelineCodec;
  ssrc: number;
  /** Random initial sequence number and timestamp (RFC 3550 5.1). */
  sequence: number;
  timestamp: number;
  /** The payload type agreed in SDP, when it differs from the codec's default. */
  payloadType?: number;
  telephoneEventPayloadType?: number;
  /** Puts one packet on the wire. The buffer is not reused afterwards. */
  transmit: (packet: Buffer) => void;
  /** With nothing queued: send encoded silence (default, keeps NAT bindings and strict peers happy) or pause. */
  idle?: 'silence' | 'pause';
  /**
   * With idle 'pause': the first frame of a talk spurt leaves when its audio is queued instead of
   * at the next tick (up to a frame later); it is the next tick's frame, and the rest of the spurt
   * goes one tick ahead of the clock (a jitter buffer holds an early frame, a late one it waits
   * for). What an answer's first word waits for after the pipeline has it.
   */
  startAtOnce?: boolean;
  maxBurst?: number;
  /** Tick with the node's other calls on one timer instead of a timer of its own. */
  pacer?: SharedPacer;
  onError?: (err: Error) => void;
}

export interface DigitOptions {
  durationMs?: number;
  /** Silence between presses. */
  gapMs?: number;
}

export interface SenderStats {
  packets: number;
  /** Payload octets, as the SR's sender octet count wants. */
  octets: number;
  eventPackets: number;
  /** Ticks the pacer skipped after a stall (their time passed), idle or not. */
  skippedFrames: number;
  /**
   * Skipped ticks that had something to send (audio queued, or idle 'silence'): holes in the
   * stream the far end hears as lost frames. Skips while paused and idle are not counted here.
   */
  holeFrames: number;
  encodeErrors: number;
}

interface PendingDigit {
  digit: string;
  options: DigitOptions;
  done: () => void;
}

export class RtpSender {
  readonly stats: SenderStats = {
    packets: 0,
    octets: 0,
    eventPackets: 0,
    skippedFrames: 0,
    holeFrames: 0,
    encodeErrors: 0,
  };
  private readonly pacer: FrameTicker;
  private samplesPerTick: number;
  private codec: PipelineCodec;
  /** Timestamps are anchor + (tick - anchorTick) * samplesPerTick; a codec change moves the anchor. */
  private anchorTimestamp: number;
  private anchorTick = 0;
  private readonly queue: Int16Array[] = [];
  /** The frame takeFrame() fills when nobody keeps it (onSent unset): the encoder only reads it. */
  private frame: Int16Array | null = null;
  private queuedSamples = 0;
  private queueOffset = 0;
  private sequence: number;
  private payloadType: number;
  private eventPayloadType: number;
  private talkspurt = true;
  /** Ticks ahead of the clock this talk spurt's frames go (1 after startAtOnce, else 0). */
  private lead = 0;
  private readonly digits: PendingDigit[] = [];
  /** Audio stays muted until this tick while a press (and its gap) is on the wire. */
  private mutedUntilTick = -1;
  private lastTick = -1;
  private eventTimer: TimerHandle | null = null;
  /** Set while the SDP direction forbids sending (recvonly, inactive): hold. */
  paused = false;
  private finishDigit: (() => void) | null = null;

  constructor(private readonly options: RtpSenderOptions) {
    this.sequence = options.sequence & 0xffff;
    this.codec = options.codec;
    this.anchorTimestamp = options.timestamp >>> 0;
    this.payloadType = options.payloadType ?? options.codec.codec.payloadType;
    this.eventPayloadType = options.telephoneEventPayloadType ?? 101;
    this.samplesPerTick = (options.codec.codec.clockRate * FRAME_MS) / 1000;
    const onTick = (i: number) => this.tick(i);
    this.pacer =
      options.pacer?.subscribe(onTick) ??
      new Pacer(options.clock, { periodMs: FRAME_MS, maxBurst: options.maxBurst ?? 3 }, onTick);
  }

  get ssrc(): number {
    return this.options.ssrc;
  }

  start(): void {
    this.pacer.start();
  }

  /** Stops sending; a press on the wire is cut short and every pending sendDigits resolves. */
  stop(): void {
    this.pacer.stop();
    if (this.eventTimer) this.options.clock.clearTimeout(this.eventTimer);
    this.eventTimer = null;
    this.finishDigit?.();
    this.finishDigit = null;
    for (const d of this.digits.splice(0)) d.done();
  }

  /** Queues pipeline-rate PCM to be sent after what is already queued. */
  enqueue(pcm: Int16Array): void {
    if (pcm.length === 0) return;
    this.queue.push(pcm);
    this.queuedSamples += pcm.length;
    if (this.options.startAtOnce) this.startSpurt();
  }

  /** See startAtOnce: a quiet paused line sends the next tick's frame now. */
  private startSpurt(): void {
    if (this.options.idle !== 'pause' || !this.pacer.running || this.paused) return;
    if (!this.talkspurt || this.lead > 0 || this.digits.length > 0 || this.finishDigit) return;
    const next = this.lastTick + 1;
    // A partial frame waits for the rest (or its tick): padding it would put silence mid-word.
    if (next < this.mutedUntilTick || this.queuedSamples - this.queueOffset < this.codec.frameSamples) return;
    this.lead = 1;
    this.sendFrame(next);
  }

  /** Drops queued audio at once (barge-in). */
  clear(): void {
    this.queue.length = 0;
    this.queuedSamples = 0;
    this.queueOffset = 0;
  }

  /** Milliseconds of audio waiting to be sent. */
  get queuedMs(): number {
    return ((this.queuedSamples - this.queueOffset) * 1000) / this.codec.rate;
  }

  /** Sends key presses as RFC 4733 events; resolves when the last end packet is out. */
  sendDigits(digits: string, options: DigitOptions = {}): Promise<void> {
    const all = [...digits].map(
      (digit) =>
        new Promise<void>((done) => {
          this.digits.push({ digit, options, done });
        }),
    );
    return Promise.all(all).then(() => undefined);
  }

  /**
   * Switches codec mid-call (a re-INVITE chose another format). The RTP timestamp runs on from
   * where it is, at the new clock rate, and the next packet carries the marker bit.
   */
  setCodec(codec: PipelineCodec, payloadType = codec.codec.payloadType): void {
    const tick = this.lastTick + 1;
    this.anchorTimestamp = this.timestampOf(tick);
    this.anchorTick = tick;
    this.codec = codec;
    this.payloadType = payloadType;
    this.samplesPerTick = (codec.codec.clockRate * FRAME_MS) / 1000;
    this.talkspurt = true;
  }

  /**
   * The telephone-event payload type the far end's answer chose (its events run at the codec's
   * clock rate, so an answer that picks Opus names the 48 kHz type).
   */
  setTelephoneEventPayloadType(payloadType: number): void {
    this.eventPayloadType = payloadType;
  }

  /** RTP timestamp for the current instant, for a sender report. */
  timestampAt(monotonicMs: number): number {
    const ticks = (monotonicMs - this.pacer.dueAt(0)) / FRAME_MS;
    return (this.anchorTimestamp + Math.round((ticks - this.anchorTick) * this.samplesPerTick)) >>> 0;
  }

  private timestampOf(tick: number): number {
    return (this.anchorTimestamp + (tick - this.anchorTick) * this.samplesPerTick) >>> 0;
  }

  /**
   * Sees every audio frame as it goes out (a call's recording); not key presses. It may keep the
   * frame: with a tap each frame is an array of its own.
   */
  onSent: ((pcm: Int16Array) => void) | null = null;

  private tick(index: number): void {
    const skipped = Math.max(0, index - this.lastTick - 1);
    if (skipped > 0) {
      this.stats.skippedFrames += skipped;
      const hadAudio = this.options.idle !== 'pause' || this.queuedSamples - this.queueOffset > 0;
      if (hadAudio && !this.paused) this.stats.holeFrames += skipped;
    }
    this.lastTick = index;
    if (this.paused) {
      // On hold the clock runs on (timestamps keep time) but nothing is sent or dequeued.
      this.talkspurt = true;
      return;
    }
    if (index < this.mutedUntilTick) return;
    const pending = this.digits.shift();
    if (pending) {
      this.startDigit(index + this.lead, pending);
      this.lead = 0;
      return;
    }
    this.sendFrame(index + this.lead);
  }

  /** Sends the next queued frame as tick `index`'s; none queued (idle 'pause') ends the spurt. */
  private sendFrame(index: number): void {
    const frame = this.takeFrame();
    if (!frame) {
      this.talkspurt = true;
      this.lead = 0;
      return;
    }
    this.onSent?.(frame);
    let payload: Buffer;
    try {
      payload = this.codec.encode(frame);
    } catch (err) {
      // An encoder failure costs this frame, never the pacer's timer (and with it the process).
      this.stats.encodeErrors++;
      this.options.onError?.(err as Error);
      return;
    }
    this.send(false, this.payloadType, this.timestampOf(index), payload);
  }

  private takeFrame(): Int16Array | null {
    const n = this.codec.frameSamples;
    const available = this.queuedSamples - this.queueOffset;
    if (available <= 0 && this.options.idle === 'pause') return null;
    // Without a tap the frame lives until the encoder has read it: one array serves every tick.
    let frame: Int16Array;
    if (this.onSent) frame = new Int16Array(n);
    else {
      frame = this.frame?.length === n ? this.frame : (this.frame = new Int16Array(n));
      frame.fill(0);
    }
    let filled = 0;
    while (filled < n && this.queue.length > 0) {
      const head = this.queue[0];
      const take = Math.min(n - filled, head.length - this.queueOffset);
      frame.set(head.subarray(this.queueOffset, this.queueOffset + take), filled);
      filled += take;
      this.queueOffset += take;
      if (this.queueOffset === head.length) {
        this.queue.shift();
        this.queuedSamples -= head.length;
        this.queueOffset = 0;
      }
    }
    return frame; // a short tail is padded with silence
  }

  private startDigit(tick: number, pending: PendingDigit): void {
    const { clock } = this.options;
    const clockRate = this.codec.codec.clockRate;
    const plan = planDigit(pending.digit, { clockRate, durationMs: pending.options.durationMs });
    const timestamp = this.timestampOf(tick);
    const startAt = this.pacer.dueAt(tick);
    const lastAt = plan[plan.length - 1].atMs;
    const gap = pending.options.gapMs ?? 60;
    this.mutedUntilTick = tick + Math.ceil((lastAt + gap) / FRAME_MS);
    let i = 0;
    this.finishDigit = pending.done;
    const next = (): void => {
      this.eventTimer = null;
      const p = plan[i++];
      this.stats.eventPackets++;
      this.send(p.marker, this.eventPayloadType, timestamp, p.payload);
      if (i < plan.length) {
        // Absolute due time, like the pacer, so the 50 ms spacing holds whatever the timer lateness.
        this.eventTimer = clock.setTimeout(next, Math.max(0, startAt + plan[i].atMs - clock.monotonic()));
      } else {
        this.talkspurt = true;
        this.finishDigit = null;
        pending.done();
      }
    };
    next();
  }

  private send(marker: boolean, payloadType: number, timestamp: number, payload: Buffer): void {
    const isAudio = payloadType === this.payloadType;
    const packet = serializeRtp(
      {
        marker: marker || (isAudio && this.talkspurt),
        payloadType,
        sequenceNumber: this.sequence,
        timestamp,
        ssrc: this.options.ssrc,
      },
      payload,
    );
    if (isAudio) this.talkspurt = false;
    this.sequence = (this.sequence + 1) & 0xffff;
    try {
      this.options.transmit(packet);
    } catch (err) {
      // A transport that closed under us (a WebRTC track closes on its own thread, between an
      // isOpen() check and the send) costs this packet, never the pacer's timer and the process.
      this.options.onError?.(err as Error);
      return;
    }
    this.stats.packets++;
    this.stats.octets += payload.length;
  }
}
