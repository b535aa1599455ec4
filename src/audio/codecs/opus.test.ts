import { describe, expect, it } from 'vitest';
import { G711Codec } from './g711.js';
import { OpusCodec } from './opus.js';
import { PipelineCodec } from './pipeline-codec.js';

function tone(freq: number, rate: number, n: number, amp: number, start = 0): Int16Array {
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(amp * Math.sin((2 * Math.PI * freq * (i + start)) / rate)),
  );
}

/** Goertzel-style magnitude of `freq` in `x`. */
function amplitude(x: Int16Array, freq: number, rate: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < x.length; i++) {
    re += x[i] * Math.cos((2 * Math.PI * freq * i) / rate);
    im += x[i] * Math.sin((2 * Math.PI * freq * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / x.length;
}

function rms(x: Int16Array): number {
  let e = 0;
  for (const v of x) e += v * v;
  return Math.sqrt(e / x.length);
}

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('OpusCodec', () => {
  it('keeps a sine’s frequency and energy through encode and decode', () => {
    const codec = new OpusCodec();
    expect(codec.frameSamples).toBe(960);
    expect(codec.payloadType).toBe(111);
    const frames: Int16Array[] = [];
    for (let f = 0; f < 50; f++) {
      const payload = codec.encode(tone(440, 48000, 960, 8000, f * 960));
      expect(payload.length).toBeGreaterThan(0);
      expect(payload.length).toBeLessThan(200);
      const pcm = codec.decode(payload);
      expect(pcm.length).toBe(960);
      frames.push(pcm);
    }
    const out = concat(frames.slice(10)); // past the encoder's start-up
    expect(amplitude(out, 440, 48000)).toBeGreaterThan(8000 * 0.8);
    expect(amplitude(out, 440, 48000)).toBeLessThan(8000 * 1.2);
    expect(amplitude(out, 1000, 48000)).toBeLessThan(8000 * 0.05);
    expect(rms(out)).toBeGreaterThan((8000 / Math.SQRT2) * 0.8);
  });

  it('decodes silence to near silence', () => {
    const codec = new OpusCodec();
    let last: Int16Array = new Int16Array(0);
    for (let f = 0; f < 10; f++) last = codec.decode(codec.encode(new Int16Array(960)));
    expect(rms(last)).toBeLessThan(5);
  });
});

describe('PipelineCodec', () => {
  it('carries 16 kHz frames through Opus at 48 kHz', () => {
    const p = new PipelineCodec(new OpusCodec());
    expect(p.frameSamples).toBe(320);
    const frames: Int16Array[] = [];
    for (let f = 0; f < 50; f++) {
      const pcm = p.decode(p.encode(tone(1000, 16000, 320, 8000, f * 320)));
      expect(pcm.length).toBe(320);
      frames.push(pcm);
    }
    const out = concat(frames.slice(10));
    expect(amplitude(out, 1000, 16000)).toBeGreaterThan(8000 * 0.8);
    expect(amplitude(out, 2000, 16000)).toBeLessThan(8000 * 0.05);
  });

  it('carries 16 kHz frames through G.711 at 8 kHz, losing only what is above 4 kHz', () => {
    const p = new PipelineCodec(new G711Codec('ulaw'));
    const frames: Int16Array[] = [];
    for (let f = 0; f < 25; f++) {
      const payload = p.encode(tone(1000, 16000, 320, 8000, f * 320));
      expect(payload.length).toBe(160);
      frames.push(p.decode(payload));
    }
    expect(amplitude(concat(frames.slice(2)), 1000, 16000)).toBeGreaterThan(8000 * 0.95);
    expect(p.conceal().length).toBe(320);
  });
});
