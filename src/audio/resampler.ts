// Streaming sample-rate conversion between 8, 16 and 48 kHz (any rational ratio works): a
// polyphase windowed-sinc FIR. The prototype low-pass is a Blackman-windowed sinc with 16 zero
// crossings each side; Blackman's sidelobes sit near -74 dB, and the tests hold aliases and images
// under -60 dB and a 1 kHz tone's level within 0.5% through 16k -> 48k -> 16k. The cutoff is 90%
// of the lower Nyquist (3.6 kHz for 8 kHz, 7.2 kHz for 16 kHz), except for 2:1 (8 <-> 16 kHz, every
// G.711 call), where it sits exactly at 4 kHz: a half-band filter, -6 dB at 4 kHz and flat through
// G.711's 3.4 kHz band, whose every other tap is zero; halfband.ts writes that case out, at about
// a quarter of the general loop's cost. Chosen over linear interpolation, whose images are audible.
// State carries across calls, so 20 ms frames join without clicks; the history starts as silence,
// so every 20 ms block in gives exactly 20 ms out from the first, for a fixed delay of half the
// filter (2 ms at 8 kHz <-> 16 kHz, about 1 ms elsewhere). Silence in, with silent history, is free.

import { HalfBandDown, HalfBandUp } from './halfband.js';

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A filter design: the same for every stream of the same rates and options, so made once. */
interface Bank {
  readonly up: number;
  readonly down: number;
  readonly taps: number;
  readonly protoHalf: number;
  readonly start: Int32Array;
  readonly offs: Int32Array;
  readonly vals: Float32Array;
  readonly activeTaps: number;
}

// Designing the bank (a sin and two cos per prototype tap) cost more than a call's first second
// of audio; every G.711 call made two. The arrays are only ever read, so streams share them.
const banks = new Map<string, Bank>();

function bankFor(fromRate: number, toRate: number, zeros: number, rolloffOption: number | undefined): Bank {
  const key = `${fromRate}:${toRate}:${zeros}:${rolloffOption}`;
  let bank = banks.get(key);
  if (!bank) {
    bank = designBank(fromRate, toRate, zeros, rolloffOption);
    // A handful of rate pairs exist in practice; the bound only guards against a caller's odd rates.
    if (banks.size >= 64) banks.delete(banks.keys().next().value!);
    banks.set(key, bank);
  }
  return bank;
}

function designBank(
  fromRate: number,
  toRate: number,
  zeros: number,
  rolloffOption: number | undefined,
): Bank {
  const g = gcd(fromRate, toRate);
  const up = toRate / g;
  const down = fromRate / g;
  const rolloff = rolloffOption ?? (up * down === 2 ? 1 : 0.9);
  // Prototype at the upsampled rate L*from, cutoff as a fraction of that rate.
  const cutoff = (0.5 * rolloff * Math.min(fromRate, toRate)) / (up * fromRate);
  const half = Math.ceil(zeros / (2 * cutoff));
  // Odd length, centred on a tap, so a half-band design's zeros fall exactly on taps.
  const protoLength = 2 * half + 1;
  const taps = Math.ceil(protoLength / up);
  const proto = new Float64Array(taps * up);
  for (let n = 0; n < protoLength; n++) {
    const t = n - half;
    const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t);
    const x = (2 * Math.PI * n) / (protoLength - 1);
    const w = 0.42 - 0.5 * Math.cos(x) + 0.08 * Math.cos(2 * x);
    // Gain L restores the level lost to the zeros that upsampling stuffs in.
    proto[n] = sinc * w * up;
  }
  // Phase p's k-th tap multiplies input sample (i - k): coefficient proto[p + k*L]. Taps that
  // are zero (half-band) or negligible are left out.
  const start = new Int32Array(up + 1);
  const offs: number[] = [];
  const vals: number[] = [];
  for (let p = 0; p < up; p++) {
    start[p] = offs.length;
    for (let k = 0; k < taps; k++) {
      const c = proto[p + k * up]!;
      if (Math.abs(c) > 1e-9) {
        offs.push(k);
        vals.push(c);
      }
    }
  }
  start[up] = offs.length;
  return {
    up,
    down,
    taps,
    protoHalf: half,
    start,
    offs: Int32Array.from(offs),
    vals: Float32Array.from(vals),
    activeTaps: offs.length / up,
  };
}

export interface ResamplerOptions {
  /** Zero crossings of the sinc on each side; more is sharper and slower. */
  zeroCrossings?: number;
  /** Cutoff as a fraction of the lower Nyquist frequency (1.0 for 2:1, else 0.9). */
  rolloff?: number;
}

export class Resampler {
  /** Upsampling factor L and downsampling factor M of the reduced ratio. */
  readonly up: number;
  readonly down: number;
  /** Filter taps per phase (zeros included). */
  readonly taps: number;
  /** Non-zero taps per output sample, on average over the phases: the real cost. */
  readonly activeTaps: number;
  /** Sparse polyphase bank: phase p's taps are offs/vals[start[p] .. start[p+1]). */
  private readonly start: Int32Array;
  private readonly offs: Int32Array;
  private readonly vals: Float32Array;
  /** The last `taps - 1` input samples at the head, then room for the next block. */
  private work: Float32Array;
  /** Whether any of those is non-zero; when none is and the input is silent, output is silence. */
  private historyLoud = false;
  /** Position of the next output on the upsampled grid, relative to the history's first sample. */
  private phase = 0;
  private readonly protoHalf: number;
  /** The written-out half-band filter that 2:1 conversions with default options delegate to. */
  private readonly halfBand: HalfBandUp | HalfBandDown | null;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
    options: ResamplerOptions = {},
  ) {
    const zeros = options.zeroCrossings ?? 16;
    const defaults = options.zeroCrossings === undefined && options.rolloff === undefined;
    const bank = bankFor(fromRate, toRate, zeros, options.rolloff);
    this.up = bank.up;
    this.down = bank.down;
    this.taps = bank.taps;
    this.protoHalf = bank.protoHalf;
    this.start = bank.start;
    this.offs = bank.offs;
    this.vals = bank.vals;
    this.activeTaps = bank.activeTaps;
    const halfBand = this.up * this.down === 2 && defaults;
    this.halfBand = halfBand ? (this.up === 2 ? new HalfBandUp() : new HalfBandDown()) : null;
    // The written-out half-band filter keeps its own history: no work buffer here then.
    this.work = new Float32Array(halfBand ? 0 : this.taps - 1 + 960);
  }

  /** Output samples that `inputLength` more input samples will produce. */
  outputLength(inputLength: number): number {
    const avail = this.taps - 1 + inputLength;
    const last = (avail - this.taps + 1) * this.up; // exclusive bound on the upsampled grid
    return last > this.phase ? Math.ceil((last - this.phase) / this.down) : 0;
  }

  /**
   * Converts the next block of a stream. `into`: where the output goes when it has the right
   * length (a caller that uses each block before the next reuses one array), else a new array.
   */
  process(input: Int16Array, into?: Int16Array): Int16Array {
    if (this.halfBand) return this.halfBand.process(input, into);
    const keep = this.taps - 1;
    const length = this.outputLength(input.length);
    const out = into?.length === length ? into : new Int16Array(length);
    let loud = false;
    for (let i = 0; i < input.length; i++) {
      if (input[i] !== 0) {
        loud = true;
        break;
      }
    }
    const total = keep + input.length;
    const consumed = total - keep;
    if (!loud && !this.historyLoud) {
      // Silence in and silence remembered: silence out, and the history stays all zeros.
      this.phase += out.length * this.down - consumed * this.up;
      return out === into ? out.fill(0) : out;
    }
    // One work buffer for the stream: history at its head, then this block.
    if (this.work.length < total) {
      const grown = new Float32Array(total);
      grown.set(this.work.subarray(0, keep));
      this.work = grown;
    }
    const buf = this.work;
    for (let i = 0; i < input.length; i++) buf[keep + i] = input[i];
    const { up, down, start, offs, vals } = this;
    let pos = this.phase;
    for (let o = 0; o < out.length; o++, pos += down) {
      // Newest input sample this output reaches is index (pos / L) + taps - 1 in buf.
      const base = Math.floor(pos / up) + keep;
      const p = pos % up;
      let acc = 0;
      for (let j = start[p], end = start[p + 1]; j < end; j++) acc += vals[j] * buf[base - offs[j]];
      out[o] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
    }
    this.phase = pos - consumed * this.up;
    buf.copyWithin(0, total - keep, total);
    this.historyLoud = false;
    for (let i = 0; i < keep; i++) {
      if (buf[i] !== 0) {
        this.historyLoud = true;
        break;
      }
    }
    return out;
  }

  /** Delay the filter adds, in output samples. */
  get delaySamples(): number {
    return this.protoHalf / this.down;
  }
}
