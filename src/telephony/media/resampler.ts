// Streaming sample-rate conversion between 8, 16 and 48 kHz (any rational ratio works): a
// polyphase windowed-sinc FIR. The prototype low-pass is a Blackman-windowed sinc with its cutoff
// at 90% of the lower Nyquist (3.6 kHz for 8 kHz, 7.2 kHz for 16 kHz) and 16 zero crossings each
// side. Blackman's sidelobes sit near -74 dB: the tests hold aliases and images under -60 dB and a
// 1 kHz tone's level within 0.5% through 16k -> 48k -> 16k. Chosen over linear interpolation, whose
// images at 48 kHz are audible, at a cost of 37 to 215 multiply-adds per output sample.
// State carries across calls, so 20 ms frames join without clicks; the history starts as silence,
// so every 20 ms block in gives exactly 20 ms out from the first, for a fixed delay of half the
// filter (2.3 ms at most, 8 kHz <-> 16 kHz).

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

export interface ResamplerOptions {
  /** Zero crossings of the sinc on each side; more is sharper and slower. */
  zeroCrossings?: number;
  /** Cutoff as a fraction of the lower Nyquist frequency. */
  rolloff?: number;
}

export class Resampler {
  /** Upsampling factor L and downsampling factor M of the reduced ratio. */
  readonly up: number;
  readonly down: number;
  /** Filter taps per phase. */
  readonly taps: number;
  /** Polyphase bank: phase p occupies coeffs[p*taps .. p*taps+taps). */
  private readonly coeffs: Float32Array;
  /** The last `taps - 1` input samples, then room for the next input block. */
  private history: Float32Array;
  /** Position of the next output on the upsampled grid, relative to the history's first sample. */
  private phase = 0;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
    options: ResamplerOptions = {},
  ) {
    const g = gcd(fromRate, toRate);
    this.up = toRate / g;
    this.down = fromRate / g;
    const zeros = options.zeroCrossings ?? 16;
    const rolloff = options.rolloff ?? 0.9;
    // Prototype at the upsampled rate L*from, cutoff as a fraction of that rate.
    const cutoff = (0.5 * rolloff * Math.min(fromRate, toRate)) / (this.up * fromRate);
    const half = Math.ceil(zeros / (2 * cutoff));
    this.taps = Math.ceil((2 * half + 1) / this.up);
    const length = this.taps * this.up;
    const centre = (length - 1) / 2;
    const proto = new Float64Array(length);
    for (let n = 0; n < length; n++) {
      const t = n - centre;
      const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t);
      const w =
        0.42 -
        0.5 * Math.cos((2 * Math.PI * n) / (length - 1)) +
        0.08 * Math.cos((4 * Math.PI * n) / (length - 1));
      // Gain L restores the level lost to the zeros that upsampling stuffs in.
      proto[n] = sinc * w * this.up;
    }
    // Phase p's k-th tap multiplies input sample (i - k): coefficient proto[p + k*L].
    this.coeffs = new Float32Array(length);
    for (let p = 0; p < this.up; p++) {
      for (let k = 0; k < this.taps; k++) this.coeffs[p * this.taps + k] = proto[p + k * this.up];
    }
    this.history = new Float32Array(this.taps - 1);
  }

  /** Output samples that `inputLength` more input samples will produce (may vary by one). */
  outputLength(inputLength: number): number {
    const avail = this.history.length + inputLength;
    const last = (avail - this.taps + 1) * this.up; // exclusive bound on the upsampled grid
    return last > this.phase ? Math.ceil((last - this.phase) / this.down) : 0;
  }

  /** Converts the next block of a stream. */
  process(input: Int16Array): Int16Array {
    const keep = this.taps - 1;
    const buf = new Float32Array(keep + input.length);
    buf.set(this.history);
    for (let i = 0; i < input.length; i++) buf[keep + i] = input[i];
    const out = new Int16Array(this.outputLength(input.length));
    const { up, down, taps, coeffs } = this;
    let pos = this.phase;
    for (let o = 0; o < out.length; o++, pos += down) {
      // Newest input sample this output reaches is index (pos / L) + taps - 1 in buf.
      const base = Math.floor(pos / up) + keep;
      const c = (pos % up) * taps;
      let acc = 0;
      for (let k = 0; k < taps; k++) acc += coeffs[c + k] * buf[base - k];
      out[o] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
    }
    const consumed = buf.length - keep; // input samples that are now history-old
    this.phase = pos - consumed * up;
    this.history = buf.slice(buf.length - keep);
    return out;
  }

  /** Delay the filter adds, in output samples. */
  get delaySamples(): number {
    return ((this.taps * this.up - 1) / 2 / this.up) * (this.toRate / this.fromRate);
  }
}
