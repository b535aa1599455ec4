import { describe, expect, it } from 'vitest';
import { Pcm16Reader } from './pcm.js';
import { WavStreamReader, wavHeader } from './wav.js';

describe('WavStreamReader', () => {
  it('finds the samples however the header is cut, ignoring a placeholder length', () => {
    const samples = Buffer.from([1, 0, 2, 0, 0xff, 0xff]);
    const whole = Buffer.concat([wavHeader(22050), samples]);
    for (let cut = 1; cut < whole.length; cut++) {
      const r = new WavStreamReader();
      const out = Buffer.concat([r.push(whole.subarray(0, cut)), r.push(whole.subarray(cut))]);
      expect(out).toEqual(samples);
      expect(r.format).toEqual({ audioFormat: 1, channels: 1, sampleRate: 22050, bitsPerSample: 16 });
    }
  });

  it('refuses a stream that is not RIFF/WAVE', () => {
    expect(() => new WavStreamReader().push(Buffer.from('ID3\u0004 not a wav file'))).toThrow(/RIFF/);
  });
});

describe('Pcm16Reader', () => {
  it('carries an odd byte to the next chunk and reads little-endian signed samples', () => {
    const r = new Pcm16Reader();
    expect(Array.from(r.push(Uint8Array.from([0x01, 0x00, 0xff])))).toEqual([1]);
    expect(Array.from(r.push(Uint8Array.from([0xff, 0x00])))).toEqual([-1]);
    expect(Array.from(r.push(Uint8Array.from([0x80])))).toEqual([-32768]);
  });
});
