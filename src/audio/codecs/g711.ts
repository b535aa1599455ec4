// G.711 µ-law (PCMU, PT 0) and A-law (PCMA, PT 8): 16-bit linear PCM <-> 8-bit codes through
// lookup tables built once at load (64 KiB per direction per law), so a 20 ms frame costs 160
// array reads.

import { FRAME_MS, type AudioCodec } from './audio-codec.js';

const ULAW_BIAS = 0x84;
const ULAW_CLIP = 32635;

function encodeUlawSample(pcm: number): number {
  let sign = 0;
  if (pcm < 0) {
    sign = 0x80;
    pcm = -pcm;
  }
  if (pcm > ULAW_CLIP) pcm = ULAW_CLIP;
  pcm += ULAW_BIAS;
  // The segment is the position of the highest set bit above bit 7.
  let exponent = 7;
  for (let mask = 0x4000; (pcm & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (pcm >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

function decodeUlawSample(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + ULAW_BIAS) << exponent) - ULAW_BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

function encodeAlawSample(pcm: number): number {
  // A-law works on 13 bits; even codes are inverted (XOR 0x55) on the wire.
  let v = pcm >> 3;
  let mask: number;
  if (v >= 0) mask = 0xd5;
  else {
    mask = 0x55;
    v = -v - 1;
  }
  let segment = 0;
  while (segment < 8 && v >= 0x20 << segment) segment++;
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (v >> 1) & 0x0f : (v >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

function decodeAlawSample(code: number): number {
  const a = code ^ 0x55;
  const segment = (a & 0x70) >> 4;
  let t = (a & 0x0f) << 4;
  if (segment === 0) t += 8;
  else t = (t + 0x108) << (segment - 1);
  return a & 0x80 ? t : -t;
}

function buildTables(enc: (pcm: number) => number, dec: (code: number) => number) {
  const encode = new Uint8Array(65536);
  for (let i = 0; i < 65536; i++) encode[i] = enc((i << 16) >> 16);
  const decode = new Int16Array(256);
  for (let c = 0; c < 256; c++) decode[c] = dec(c);
  return { encode, decode };
}

const ULAW = buildTables(encodeUlawSample, decodeUlawSample);
const ALAW = buildTables(encodeAlawSample, decodeAlawSample);

export function linearToUlaw(pcm: number): number {
  return ULAW.encode[pcm & 0xffff];
}
export function ulawToLinear(code: number): number {
  return ULAW.decode[code & 0xff];
}
export function linearToAlaw(pcm: number): number {
  return ALAW.encode[pcm & 0xffff];
}
export function alawToLinear(code: number): number {
  return ALAW.decode[code & 0xff];
}

/** Encodes `pcm` into `out` (same length) without allocating; returns `out`. */
export function encodeG711Into(law: 'ulaw' | 'alaw', pcm: Int16Array, out: Uint8Array): Uint8Array {
  const table = law === 'ulaw' ? ULAW.encode : ALAW.encode;
  const n = pcm.length;
  for (let i = 0; i < n; i++) out[i] = table[pcm[i] & 0xffff];
  return out;
}

export function decodeG711Into(law: 'ulaw' | 'alaw', codes: Uint8Array, out: Int16Array): Int16Array {
  const table = law === 'ulaw' ? ULAW.decode : ALAW.decode;
  const n = codes.length;
  for (let i = 0; i < n; i++) out[i] = table[codes[i]];
  return out;
}

export class G711Codec implements AudioCodec {
  readonly name: 'PCMU' | 'PCMA';
  readonly sampleRate = 8000;
  readonly clockRate = 8000;
  readonly payloadType: number;
  readonly frameSamples = (8000 * FRAME_MS) / 1000;

  constructor(readonly law: 'ulaw' | 'alaw') {
    this.name = law === 'ulaw' ? 'PCMU' : 'PCMA';
    this.payloadType = law === 'ulaw' ? 0 : 8;
  }

  encode(pcm: Int16Array): Buffer {
    const out = Buffer.allocUnsafe(pcm.length);
    encodeG711Into(this.law, pcm, out);
    return out;
  }

  decode(payload: Buffer): Int16Array {
    return decodeG711Into(this.law, payload, new Int16Array(payload.length));
  }

  decodeInto(payload: Buffer, out: Int16Array | undefined): Int16Array {
    return decodeG711Into(
      this.law,
      payload,
      out?.length === payload.length ? out : new Int16Array(payload.length),
    );
  }

  conceal(samples: number): Int16Array {
    return new Int16Array(samples);
  }
}
