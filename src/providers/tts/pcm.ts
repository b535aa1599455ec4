// Byte-level PCM helpers for the TTS adapters: little-endian 16-bit samples from a byte stream
// whose chunks may split a sample, µ-law bytes, and rate conversion to the caller's rate.
import { decodeG711Into } from '../../audio/codecs/g711.js';
import { Resampler } from '../../audio/resampler.js';

/** Turns byte chunks into samples, carrying an odd trailing byte to the next chunk. */
export class Pcm16Reader {
  private carry: number | undefined;

  push(bytes: Uint8Array): Int16Array {
    const total = bytes.length + (this.carry === undefined ? 0 : 1);
    const out = new Int16Array(total >> 1);
    let i = 0;
    let o = 0;
    if (this.carry !== undefined && bytes.length > 0) {
      out[o++] = (((bytes[0]! << 8) | this.carry) << 16) >> 16;
      i = 1;
      this.carry = undefined;
    }
    for (; i + 1 < bytes.length; i += 2) out[o++] = (((bytes[i + 1]! << 8) | bytes[i]!) << 16) >> 16;
    if (i < bytes.length) this.carry = bytes[i];
    return out;
  }
}

export function decodeUlaw(bytes: Uint8Array): Int16Array {
  return decodeG711Into('ulaw', bytes, new Int16Array(bytes.length));
}

/** Converts a stream's blocks from one rate to another; passes them through when equal. */
export class RateConverter {
  private readonly resampler: Resampler | undefined;

  constructor(from: number, to: number) {
    this.resampler = from === to ? undefined : new Resampler(from, to);
  }

  process(samples: Int16Array): Int16Array {
    return this.resampler ? this.resampler.process(samples) : samples;
  }
}
