// Finds the voicemail beep: a steady tone, one frequency holding most of the audio's energy for a
// fifth of a second or more, between 300 and 2500 Hz (machines beep anywhere from about 400 Hz to
// 2 kHz; 1 kHz is common). Speech never does that: a voice spreads its energy over many harmonics
// that glide, and a keypad tone is two frequencies at once.
//
// Each 20 ms frame is measured with the Goertzel algorithm (one DFT term per frequency, no FFT)
// at every 25 Hz of the band; a frame is tonal when its strongest term carries at least
// `minPurity` of the frame's energy. `minMs` of tonal frames whose frequency stays within
// `maxDriftHz` make a beep; it is reported when the tone stops (a workflow speaks after the beep,
// not over it), or once it has lasted `maxMs`.
import { FrameCutter } from './frames.js';

export interface BeepOptions {
  sampleRate: number;
  minHz?: number;
  maxHz?: number;
  stepHz?: number;
  minPurity?: number;
  minMs?: number;
  maxMs?: number;
  maxDriftHz?: number;
  /** Frames quieter than this mean absolute level are not tones. */
  minLevel?: number;
}

export interface Beep {
  frequencyHz: number;
  /** Where the tone began and ended, in ms of audio pushed. */
  startMs: number;
  endMs: number;
}

const FRAME_MS = 20;

/** Power of one frequency in `x` (Goertzel), scaled so a pure full-frame sine gives ~1 × energy. */
export function goertzelPurity(
  x: Int16Array,
  frequencyHz: number,
  sampleRate: number,
  energy: number,
): number {
  const coeff = 2 * Math.cos((2 * Math.PI * frequencyHz) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < x.length; i++) {
    const s0 = x[i]! + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  return energy > 0 ? (2 * power) / (x.length * energy) : 0;
}

export class BeepDetector {
  private readonly o: Required<BeepOptions>;
  private readonly frames: FrameCutter;
  private readonly freqs: number[] = [];
  private elapsed = 0;
  private run: { startMs: number; hz: number; frames: number } | null = null;
  beep: Beep | null = null;

  constructor(options: BeepOptions) {
    this.o = {
      minHz: 300,
      maxHz: 2500,
      stepHz: 25,
      minPurity: 0.5,
      minMs: 200,
      maxMs: 1500,
      maxDriftHz: 50,
      minLevel: 200,
      ...options,
    };
    this.frames = new FrameCutter((this.o.sampleRate * FRAME_MS) / 1000);
    for (let f = this.o.minHz; f <= this.o.maxHz; f += this.o.stepHz) this.freqs.push(f);
  }

  push(pcm: Int16Array): Beep | null {
    if (this.beep) return this.beep;
    this.frames.push(pcm, (f) => {
      this.frame(f);
      return this.beep !== null;
    });
    return this.beep;
  }

  /** The strongest frequency of a frame and its share of the energy, or null when it is quiet. */
  private tone(f: Int16Array): { hz: number; purity: number } | null {
    let energy = 0;
    let level = 0;
    for (let i = 0; i < f.length; i++) {
      energy += f[i]! * f[i]!;
      level += Math.abs(f[i]!);
    }
    if (level / f.length < this.o.minLevel) return null;
    let best = { hz: 0, purity: 0 };
    for (const hz of this.freqs) {
      const purity = goertzelPurity(f, hz, this.o.sampleRate, energy);
      if (purity > best.purity) best = { hz, purity };
    }
    return best.purity >= this.o.minPurity ? best : null;
  }

  private frame(f: Int16Array): void {
    const start = this.elapsed;
    this.elapsed += FRAME_MS;
    const t = this.tone(f);
    const run = this.run;
    if (t && run && Math.abs(t.hz - run.hz) <= this.o.maxDriftHz) {
      run.frames++;
      if (run.frames * FRAME_MS >= this.o.maxMs) this.found(run, this.elapsed);
      return;
    }
    if (run && run.frames * FRAME_MS >= this.o.minMs) return this.found(run, start);
    this.run = t ? { startMs: start, hz: t.hz, frames: 1 } : null;
  }

  private found(run: { startMs: number; hz: number }, endMs: number): void {
    this.beep = { frequencyHz: run.hz, startMs: run.startMs, endMs };
  }
}
