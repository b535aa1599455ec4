import { describe, expect, it } from 'vitest';
import { alawToLinear, G711Codec, linearToAlaw, linearToUlaw, ulawToLinear } from './g711.js';

describe('G.711 µ-law', () => {
  it('matches the reference points', () => {
    expect(linearToUlaw(0)).toBe(0xff);
    expect(ulawToLinear(0xff)).toBe(0);
    expect(ulawToLinear(0x7f)).toBe(0); // negative zero
    expect(linearToUlaw(32767)).toBe(0x80);
    expect(linearToUlaw(-32768)).toBe(0x00);
    expect(ulawToLinear(0x80)).toBe(32124);
    expect(ulawToLinear(0x00)).toBe(-32124);
    expect(linearToUlaw(-1)).toBe(0x7f);
    // First segment boundaries: codes step every 8 linear units near zero.
    expect(ulawToLinear(0xfe)).toBe(8);
    expect(ulawToLinear(0xef)).toBe(132);
  });

  it('decode then encode is the identity on every code but negative zero', () => {
    for (let c = 0; c < 256; c++) {
      const back = linearToUlaw(ulawToLinear(c));
      expect(back).toBe(c === 0x7f ? 0xff : c);
    }
  });

  it('keeps the round-trip error within half a quantisation step', () => {
    const over: number[] = [];
    for (let x = -32768; x <= 32767; x++) {
      const err = Math.abs(ulawToLinear(linearToUlaw(x)) - x);
      const bound = Math.abs(x) <= 32635 ? (Math.abs(x) + 132) / 32 : 32768 - 32124;
      if (err > bound) over.push(x);
    }
    expect(over).toEqual([]);
  });

  it('is monotonic in the decoded value', () => {
    let prev = -Infinity;
    const backwards: number[] = [];
    for (let x = -32768; x <= 32767; x++) {
      const y = ulawToLinear(linearToUlaw(x));
      if (y < prev) backwards.push(x);
      prev = y;
    }
    expect(backwards).toEqual([]);
  });
});

describe('G.711 A-law', () => {
  it('matches the reference points', () => {
    expect(linearToAlaw(0)).toBe(0xd5);
    expect(linearToAlaw(-1)).toBe(0x55);
    expect(alawToLinear(0xd5)).toBe(8);
    expect(alawToLinear(0x55)).toBe(-8);
    expect(linearToAlaw(32767)).toBe(0xaa);
    expect(linearToAlaw(-32768)).toBe(0x2a);
    expect(alawToLinear(0xaa)).toBe(32256);
    expect(alawToLinear(0x2a)).toBe(-32256);
  });

  it('decode then encode is the identity on every code', () => {
    for (let c = 0; c < 256; c++) expect(linearToAlaw(alawToLinear(c))).toBe(c);
  });

  it('keeps the round-trip error bounded', () => {
    const over: number[] = [];
    for (let x = -32768; x <= 32767; x++) {
      const err = Math.abs(alawToLinear(linearToAlaw(x)) - x);
      if (err > Math.max(16, Math.abs(x) / 32 + 8)) over.push(x);
    }
    expect(over).toEqual([]);
  });
});

describe('G711Codec', () => {
  it('encodes a frame and decodes it back close to the input', () => {
    for (const law of ['ulaw', 'alaw'] as const) {
      const codec = new G711Codec(law);
      expect(codec.payloadType).toBe(law === 'ulaw' ? 0 : 8);
      const pcm = Int16Array.from({ length: codec.frameSamples }, (_, i) =>
        Math.round(10000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)),
      );
      const payload = codec.encode(pcm);
      expect(payload.length).toBe(160);
      const back = codec.decode(payload);
      let errEnergy = 0;
      let energy = 0;
      for (let i = 0; i < pcm.length; i++) {
        energy += pcm[i] ** 2;
        errEnergy += (pcm[i] - back[i]) ** 2;
      }
      // G.711 gives about 38 dB SNR on a loud tone.
      expect(10 * Math.log10(energy / errEnergy)).toBeGreaterThan(30);
    }
  });
});
