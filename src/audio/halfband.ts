// The 2:1 conversions of every G.711 call (8 kHz <-> the 16 kHz pipeline) as a dedicated half-band
// filter: the same Blackman-windowed sinc the general Resampler designs for 2:1 (cutoff at 4 kHz,
// 16 zero crossings), but written out. A half-band filter's even taps are zero except the centre,
// and its odd taps come in equal pairs, so interpolating copies every other output and computes
// the rest from 16 summed pairs, and decimating costs 16 multiplies per output: about a quarter
// of the general polyphase loop's work, which profiling showed dominating a busy media node.

const PAIRS = 16;

/** g[j] multiplies the pair of inputs 2j+1 upsampled-rate samples either side of the centre. */
function pairCoefficients(gain: number): Float64Array {
  const half = 2 * PAIRS; // the prototype spans taps -half..half
  const g = new Float64Array(PAIRS);
  for (let j = 0; j < PAIRS; j++) {
    const t = 2 * j + 1;
    const sinc = Math.sin(0.5 * Math.PI * t) / (Math.PI * t);
    const x = (2 * Math.PI * (t + half)) / (2 * half);
    const w = 0.42 - 0.5 * Math.cos(x) + 0.08 * Math.cos(2 * x);
    g[j] = sinc * w * gain;
  }
  return g;
}

/** 8 kHz -> 16 kHz, streaming; every block of n samples gives 2n. */
export class HalfBandUp {
  /** Delay in output samples. */
  readonly delaySamples = 2 * PAIRS;
  private readonly g = pairCoefficients(2);
  /** 2*PAIRS samples of history, then the block. */
  private work = new Float32Array(2 * PAIRS + 960);
  private loud = false;

  /** `into`: where the output goes when it is the right length (reused by the caller), else a new array. */
  process(input: Int16Array, into?: Int16Array): Int16Array {
    const keep = 2 * PAIRS;
    const n = input.length;
    const out = into?.length === 2 * n ? into : new Int16Array(2 * n);
    let loud = false;
    for (let i = 0; i < n; i++) if (input[i] !== 0) loud = true;
    if (!loud && !this.loud) return out === into ? out.fill(0) : out;
    if (this.work.length < keep + n) {
      const grown = new Float32Array(keep + n);
      grown.set(this.work.subarray(0, keep));
      this.work = grown;
    }
    const x = this.work;
    for (let i = 0; i < n; i++) x[keep + i] = input[i];
    const g = this.g;
    // Output pair k is centred between x[k + PAIRS] and x[k + PAIRS + 1] (relative to the buffer).
    for (let k = 0; k < n; k++) {
      const c = k + PAIRS;
      let acc = 0;
      for (let j = 0; j < PAIRS; j++) acc += g[j] * (x[c - j] + x[c + 1 + j]);
      const even = x[c];
      out[2 * k] = even;
      out[2 * k + 1] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
    }
    x.copyWithin(0, n, n + keep);
    this.loud = false;
    for (let i = 0; i < keep; i++) if (x[i] !== 0) this.loud = true;
    return out;
  }
}

/** 16 kHz -> 8 kHz, streaming; every block of 2n samples gives n. */
export class HalfBandDown {
  /** Delay in output samples. */
  readonly delaySamples = PAIRS;
  private readonly g = pairCoefficients(1);
  /** 4*PAIRS samples of history, then the block. */
  private work = new Float32Array(4 * PAIRS + 960);
  private loud = false;
  /** Whether the previous block ended mid-pair (odd length): its last sample waits here. */
  private pending = 0;

  /** `into`: where the output goes when it is the right length (reused by the caller), else a new array. */
  process(input: Int16Array, into?: Int16Array): Int16Array {
    const keep = 4 * PAIRS;
    const total = this.pending + input.length;
    const n = total >> 1;
    const out = into?.length === n ? into : new Int16Array(n);
    let loud = false;
    for (let i = 0; i < input.length; i++) if (input[i] !== 0) loud = true;
    if (!loud && !this.loud) {
      this.pending = total & 1;
      if (this.pending) this.work[keep] = 0;
      return out === into ? out.fill(0) : out;
    }
    if (this.work.length < keep + total) {
      const grown = new Float32Array(keep + total);
      grown.set(this.work.subarray(0, keep + this.pending));
      this.work = grown;
    }
    const x = this.work;
    for (let i = 0; i < input.length; i++) x[keep + this.pending + i] = input[i];
    const g = this.g;
    // Output k is centred on x[2k + 2*PAIRS]: far enough in that every pair is in the buffer.
    for (let k = 0; k < n; k++) {
      const c = 2 * k + 2 * PAIRS;
      let acc = 0.5 * x[c];
      for (let j = 0; j < PAIRS; j++) acc += g[j] * (x[c - 2 * j - 1] + x[c + 2 * j + 1]);
      out[k] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
    }
    const used = 2 * n;
    this.pending = total & 1;
    x.copyWithin(0, used, used + keep + this.pending);
    this.loud = false;
    for (let i = 0; i < keep + this.pending; i++) if (x[i] !== 0) this.loud = true;
    return out;
  }
}
