import { describe, expect, it } from 'vitest';
import { Resampler } from './resampler.js';

function tone(freq: number, rate: number, n: number, amp = 10000): Int16Array {
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(amp * Math.sin((2 * Math.PI * freq * i) / rate)),
  );
}

/** Runs `pcm` through `r` in 20 ms blocks, as the pipeline does. */
function stream(r: Resampler, pcm: Int16Array): Int16Array {
  const block = r.fromRate / 50;
  const parts: Int16Array[] = [];
  for (let i = 0; i < pcm.length; i += block) parts.push(r.process(pcm.subarray(i, i + block)));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Amplitude of `freq` in `x` (single-bin DFT over a whole number of periods is not needed: long window). */
function amplitude(x: Int16Array, freq: number, rate: number, skip: number): number {
  let re = 0;
  let im = 0;
  const n = x.length - skip;
  for (let i = skip; i < x.length; i++) {
    re += x[i] * Math.cos((2 * Math.PI * freq * i) / rate);
    im += x[i] * Math.sin((2 * Math.PI * freq * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / n;
}

describe('Resampler', () => {
  it('produces exactly the rate ratio of samples, block by block', () => {
    for (const [from, to] of [
      [8000, 16000],
      [16000, 8000],
      [16000, 48000],
      [48000, 16000],
      [8000, 48000],
      [48000, 8000],
    ]) {
      const r = new Resampler(from, to);
      // Every 20 ms block yields 20 ms of output, the first one included.
      for (let i = 0; i < 100; i++) expect(r.process(new Int16Array(from / 50)).length).toBe(to / 50);
      expect(stream(r, new Int16Array(from)).length).toBe(to);
    }
  });

  it('keeps a 1 kHz tone at its level through 16k -> 48k -> 16k', () => {
    const up = new Resampler(16000, 48000);
    const down = new Resampler(48000, 16000);
    const x = tone(1000, 16000, 16000);
    const y = stream(down, stream(up, x));
    expect(amplitude(y, 1000, 16000, 400)).toBeCloseTo(10000, -2); // within ±50
    // Nothing else: the residual after removing the tone is small.
    expect(amplitude(y, 3000, 16000, 400)).toBeLessThan(10);
  });

  it('suppresses content above the lower Nyquist when decimating', () => {
    const down = new Resampler(48000, 8000);
    // 7 kHz at 48 kHz would alias to 1 kHz at 8 kHz.
    const y = stream(down, tone(7000, 48000, 48000));
    expect(amplitude(y, 1000, 8000, 200)).toBeLessThan(10000 * 10 ** (-60 / 20));
    // And a 3 kHz tone passes.
    const z = stream(new Resampler(48000, 8000), tone(3000, 48000, 48000));
    expect(amplitude(z, 3000, 8000, 200)).toBeGreaterThan(9800);
  });

  it('does not create images when interpolating', () => {
    const up = new Resampler(8000, 48000);
    const y = stream(up, tone(1000, 8000, 8000));
    expect(amplitude(y, 1000, 48000, 1000)).toBeGreaterThan(9800);
    // The first image of 1 kHz at 8 kHz sits at 7 kHz.
    expect(amplitude(y, 7000, 48000, 1000)).toBeLessThan(10000 * 10 ** (-60 / 20));
  });

  it('keeps G.711’s band through the 2:1 half-band filter and rejects its images', () => {
    const up = new Resampler(8000, 16000);
    expect(up.activeTaps).toBeLessThan(up.taps * 0.6);
    const y = stream(up, tone(3400, 8000, 8000));
    expect(amplitude(y, 3400, 16000, 400)).toBeGreaterThan(9500);
    // 3.4 kHz at 8 kHz images to 4.6 kHz at 16 kHz.
    expect(amplitude(y, 4600, 16000, 400)).toBeLessThan(10000 * 10 ** (-40 / 20));
    const down = new Resampler(16000, 8000);
    expect(amplitude(stream(down, tone(3400, 16000, 16000)), 3400, 8000, 400)).toBeGreaterThan(9500);
    expect(
      amplitude(stream(new Resampler(16000, 8000), tone(6000, 16000, 16000)), 2000, 8000, 400),
    ).toBeLessThan(10);
  });

  it('reports its delay: an impulse comes out delaySamples later', () => {
    for (const [from, to] of [
      [8000, 16000],
      [16000, 8000],
      [16000, 48000],
      [48000, 16000],
    ]) {
      const r = new Resampler(from, to);
      const x = new Int16Array(from / 10);
      x[0] = 20000;
      const y = stream(r, x);
      let peak = 0;
      for (let i = 1; i < y.length; i++) if (Math.abs(y[i]) > Math.abs(y[peak])) peak = i;
      expect(Math.abs(peak - r.delaySamples)).toBeLessThanOrEqual(1);
    }
  });

  it('passes silence through for free and picks the stream up after it', () => {
    const a = new Resampler(16000, 8000);
    const b = new Resampler(16000, 8000);
    const silence = new Int16Array(320);
    const t = tone(1000, 16000, 320);
    expect(a.process(silence).every((v) => v === 0)).toBe(true);
    // Same output as a resampler that computed the silence sample by sample.
    const viaShortcut = [a.process(t), a.process(silence), a.process(silence)];
    b.process(new Int16Array(320).fill(0));
    const computed = [b.process(t), b.process(silence), b.process(silence)];
    expect(viaShortcut).toEqual(computed);
    expect(viaShortcut[1].some((v) => v !== 0)).toBe(true); // the tail of the tone rings on
  });

  it('gives the same output from the written-out half-band filter as from the general loop', () => {
    for (const [from, to] of [
      [8000, 16000],
      [16000, 8000],
    ]) {
      const fast = new Resampler(from, to);
      const general = new Resampler(from, to, { zeroCrossings: 16, rolloff: 1 });
      const x = tone(1234, from, from / 5);
      x[7] = 32767;
      x[8] = -32768;
      // Uneven blocks, as a stream may deliver them: an odd block may hold one output back.
      let at = 0;
      const a: number[] = [];
      const b: number[] = [];
      for (const size of [160, 17, 1, 160, 22, from / 5 - 360]) {
        const block = x.subarray(at, at + size);
        at += size;
        a.push(...fast.process(block));
        b.push(...general.process(block));
        expect(Math.abs(a.length - b.length)).toBeLessThanOrEqual(1);
      }
      expect(a.length).toBe((x.length * to) / from);
      expect(b.length).toBe(a.length);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
      expect(worst).toBeLessThanOrEqual(1);
    }
  });

  it('keeps each stream its own history while streams of the same rates share one filter design', () => {
    for (const [from, to] of [
      [16000, 48000],
      [48000, 16000],
      [8000, 16000],
    ]) {
      const x = tone(440, from, from / 2);
      const y = tone(2000, from, from / 2, 3000);
      const alone = stream(new Resampler(from, to), x);
      // Two streams at once, block by block interleaved, with a third one made in between.
      const a = new Resampler(from, to);
      const b = new Resampler(from, to);
      const block = from / 50;
      const outA: number[] = [];
      for (let i = 0; i < x.length; i += block) {
        outA.push(...a.process(x.subarray(i, i + block)));
        b.process(y.subarray(i, i + block));
        if (i === block * 3) new Resampler(from, to).process(y.subarray(0, block));
      }
      expect(outA).toEqual([...alone]);
    }
  });

  it('gives the same stream into a reused array as into new ones, silence included', () => {
    for (const [from, to] of [
      [16000, 8000],
      [8000, 16000],
      [16000, 48000],
    ] as const) {
      const fresh = new Resampler(from, to);
      const reusing = new Resampler(from, to);
      const block = from / 50;
      // Loud, then silence long enough for the history to empty, then loud again.
      const pcm = new Int16Array(block * 12);
      pcm.set(tone(440, from, block * 4), 0);
      pcm.set(tone(1000, from, block * 2), block * 10);
      let into: Int16Array | undefined;
      for (let i = 0; i < pcm.length; i += block) {
        const input = pcm.subarray(i, i + block);
        const want = fresh.process(input);
        const got = reusing.process(input, into);
        if (into) expect(got).toBe(into);
        expect([...got]).toEqual([...want]);
        into = got;
      }
    }
  });
});
