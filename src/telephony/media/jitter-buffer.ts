// Adaptive jitter buffer for one incoming RTP stream. Packets are pushed as they arrive; the
// playout side pulls one frame every frame interval on its own clock and gets the next frame in
// sequence order, a loss to conceal (the decoder runs PLC or plays silence), or nothing while it
// is filling. The target delay follows the measured jitter (RFC 3550 A.8 estimator, three times
// it plus one frame), is raised at once when a packet comes too late, and is given back a frame
// at a time by dropping a frame when the buffer has held more than it needs for a while.
// Streams are assumed to keep one packet duration (ptime), the norm for telephony.

import { seqDiff } from './rtp-stats.js';

export interface JitterBufferOptions {
  /** RTP clock rate of the stream (8000 for G.711, 48000 for Opus). */
  clockRate: number;
  /** Packet duration; 20 ms unless the SDP's ptime says otherwise. */
  frameMs?: number;
  /** Bounds of the target delay. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Delay before any jitter has been measured. */
  initialDelayMs?: number;
  /** Pulls with a surplus before one frame is dropped to cut latency (25 = 0.5 s at 20 ms). */
  shrinkAfterPulls?: number;
  /** Pulls without a late packet before a late-packet raise of the target decays by one frame. */
  relaxAfterPulls?: number;
}

export type JitterOutput =
  | { kind: 'frame'; seq: number; timestamp: number; marker: boolean; payload: Buffer }
  | { kind: 'loss'; seq: number }
  | { kind: 'empty' };

export interface JitterStats {
  received: number;
  played: number;
  /** Frames missing at their playout time and handed out as losses. */
  concealed: number;
  /** Packets that arrived after their playout time and were dropped. */
  late: number;
  duplicates: number;
  /** Frames dropped on purpose to shrink the delay, or because the buffer overflowed. */
  dropped: number;
  underruns: number;
  resets: number;
}

interface Slot {
  ext: number;
  timestamp: number;
  marker: boolean;
  /** Null for a sequence number spent on something else (a telephone-event): skipped, not lost. */
  payload: Buffer | null;
}

const EMPTY: JitterOutput = Object.freeze({ kind: 'empty' });
const SKIPPED: JitterOutput = Object.freeze({ kind: 'empty' });
const RESET_DISTANCE = 3000;

export class JitterBuffer {
  readonly frameMs: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  private readonly capacity: number;
  private readonly slots: (Slot | undefined)[];
  private readonly shrinkAfter: number;
  private readonly relaxAfter: number;
  private started = false;
  private playing = false;
  /** Extended sequence numbers: next to play, highest held, last handed out. */
  private nextSeq = 0;
  private highest = 0;
  private lastOut = -Infinity;
  private count = 0;
  private surplusPulls = 0;
  private calmPulls = 0;
  /** Floor the target keeps after late packets; decays while none come. */
  private lateFloorMs: number;
  private jitterUnits = 0;
  private lastTransit: number | null = null;
  readonly stats: JitterStats = {
    received: 0,
    played: 0,
    concealed: 0,
    late: 0,
    duplicates: 0,
    dropped: 0,
    underruns: 0,
    resets: 0,
  };

  constructor(private readonly options: JitterBufferOptions) {
    this.frameMs = options.frameMs ?? 20;
    this.minDelayMs = options.minDelayMs ?? 20;
    this.maxDelayMs = options.maxDelayMs ?? 200;
    this.lateFloorMs = options.initialDelayMs ?? 40;
    this.shrinkAfter = options.shrinkAfterPulls ?? 25;
    this.relaxAfter = options.relaxAfterPulls ?? 250;
    this.capacity = Math.ceil(this.maxDelayMs / this.frameMs) * 2 + 8;
    this.slots = new Array(this.capacity);
  }

  /** Interarrival jitter in milliseconds. */
  get jitterMs(): number {
    return (this.jitterUnits * 1000) / this.options.clockRate;
  }

  /** The delay the buffer currently aims for, a whole number of frames within the bounds. */
  get targetDelayMs(): number {
    const fromJitter = this.frameMs + 3 * this.jitterMs;
    const want = Math.max(fromJitter, this.lateFloorMs, this.minDelayMs);
    const frames = Math.ceil(want / this.frameMs - 1e-9);
    return Math.min(this.maxDelayMs, frames * this.frameMs);
  }

  /** Packets waiting in the buffer. */
  get held(): number {
    return this.count;
  }

  /** Frames held from the next to play up to the highest received. */
  get depthFrames(): number {
    return this.count === 0 ? 0 : this.highest - this.nextSeq + 1;
  }

  /**
   * Notes a packet of the same stream that carries no audio (an RFC 4733 event shares the
   * sequence space), so its number reads as skipped rather than lost.
   */
  skip(seq: number): void {
    if (!this.started) return;
    this.insert(seq, 0, null, false);
  }

  /** Adds an arriving packet; `arrivalMs` is the local monotonic time. The payload is kept, not copied. */
  push(seq: number, timestamp: number, payload: Buffer, marker: boolean, arrivalMs: number): void {
    this.stats.received++;
    if (!this.started) {
      this.restart(seq);
    }
    this.insert(seq, timestamp, payload, marker, arrivalMs);
  }

  private insert(
    seq: number,
    timestamp: number,
    payload: Buffer | null,
    marker: boolean,
    arrivalMs?: number,
  ): void {
    let ext = this.highest + seqDiff(seq, this.highest & 0xffff);
    if (ext - this.highest > RESET_DISTANCE || this.nextSeq - ext > RESET_DISTANCE) {
      // The sender restarted its sequence (or a new source took over): start again.
      this.stats.resets++;
      this.restart(seq);
      ext = this.highest;
    }
    if (arrivalMs !== undefined) this.measure(timestamp, arrivalMs);
    if (ext <= this.lastOut) {
      if (payload) {
        this.stats.late++;
        this.raiseAfterLate();
      }
      return;
    }
    if (ext < this.nextSeq) {
      // Reordered ahead of playout start: begin earlier, as nothing before it was handed out yet.
      if (this.nextSeq - ext >= this.capacity) return;
      this.nextSeq = ext;
    }
    if (ext - this.nextSeq >= this.capacity) this.skipTo(ext - this.capacity + 1);
    const i = ext % this.capacity;
    const held = this.slots[i];
    if (held && held.ext === ext) {
      if (payload) this.stats.duplicates++;
      return;
    }
    this.slots[i] = { ext, timestamp, marker, payload };
    this.count++;
    if (ext > this.highest) this.highest = ext;
  }

  /**
   * The next frame in sequence if it has arrived, for a receiver that hands frames on as they come
   * (its clock pulls only what did not); null when it has not. Numbers a press took are passed.
   */
  takeArrived(): JitterOutput | null {
    for (;;) {
      if (this.count === 0) return null;
      const slot = this.slots[this.nextSeq % this.capacity];
      if (!slot || slot.ext !== this.nextSeq) return null;
      this.playing = true;
      const out = this.take();
      if (out !== SKIPPED) return out;
    }
  }

  /** Called once per frame interval by the playout clock. */
  pull(): JitterOutput {
    if (!this.playing) {
      if (this.count === 0 || this.depthFrames * this.frameMs < this.targetDelayMs) return EMPTY;
      this.playing = true;
    }
    if (this.count === 0 || this.nextSeq > this.highest) {
      // Nothing ahead: the far end paused (silence suppression) or everything is late. Refill.
      this.playing = false;
      this.stats.underruns++;
      return EMPTY;
    }
    let out = this.take();
    while (out === SKIPPED) {
      if (this.count === 0 || this.nextSeq > this.highest) {
        this.playing = false;
        return EMPTY;
      }
      out = this.take();
    }
    this.adapt();
    return out;
  }

  private take(): JitterOutput {
    const ext = this.nextSeq;
    const i = ext % this.capacity;
    const slot = this.slots[i];
    this.nextSeq++;
    this.lastOut = ext;
    if (slot && slot.ext === ext) {
      this.slots[i] = undefined;
      this.count--;
      if (!slot.payload) return SKIPPED;
      this.stats.played++;
      return {
        kind: 'frame',
        seq: ext & 0xffff,
        timestamp: slot.timestamp,
        marker: slot.marker,
        payload: slot.payload,
      };
    }
    this.stats.concealed++;
    return { kind: 'loss', seq: ext & 0xffff };
  }

  private adapt(): void {
    if (++this.calmPulls >= this.relaxAfter) {
      this.calmPulls = 0;
      this.lateFloorMs = Math.max(this.minDelayMs, this.lateFloorMs - this.frameMs);
    }
    // Surplus beyond one frame of slack over the target, sustained, costs a frame of latency.
    if ((this.depthFrames - 1) * this.frameMs > this.targetDelayMs) {
      if (++this.surplusPulls >= this.shrinkAfter) {
        this.surplusPulls = 0;
        const dropped = this.take();
        if (dropped === SKIPPED) return;
        if (dropped.kind === 'frame') this.stats.played--;
        else this.stats.concealed--;
        this.stats.dropped++;
      }
    } else this.surplusPulls = 0;
  }

  private raiseAfterLate(): void {
    this.calmPulls = 0;
    this.lateFloorMs = Math.min(
      this.maxDelayMs,
      Math.max(this.lateFloorMs, this.targetDelayMs) + this.frameMs,
    );
  }

  private measure(timestamp: number, arrivalMs: number): void {
    const arrival = Math.round((arrivalMs * this.options.clockRate) / 1000);
    const transit = (arrival - timestamp) | 0;
    if (this.lastTransit !== null) {
      const d = Math.abs((transit - this.lastTransit) | 0);
      // A jump of over a second is a stream discontinuity, not jitter.
      if (d < this.options.clockRate) this.jitterUnits += (d - this.jitterUnits) / 16;
    }
    this.lastTransit = transit;
  }

  /** Forgets everything older than `ext`, counting held frames as dropped. */
  private skipTo(ext: number): void {
    for (let s = this.nextSeq; s < ext; s++) {
      const i = s % this.capacity;
      const slot = this.slots[i];
      if (slot && slot.ext === s) {
        this.slots[i] = undefined;
        this.count--;
        this.stats.dropped++;
      }
    }
    this.nextSeq = ext;
    this.lastOut = ext - 1;
  }

  private restart(seq: number): void {
    // Frames of the old stream still held are not played: the new one takes over at once.
    this.stats.dropped += this.count;
    this.slots.fill(undefined);
    this.count = 0;
    // Keep extended numbers positive and far from zero so wrap-around never goes negative.
    this.highest = 0x10000 + seq;
    this.nextSeq = this.highest;
    this.lastOut = -Infinity;
    this.playing = false;
    this.started = true;
    this.lastTransit = null;
  }
}
