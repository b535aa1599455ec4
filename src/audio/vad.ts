// Voice activity detection that depends on no recogniser: it tells when a caller starts and stops
// speaking from the audio alone, so barge-in and the end of a turn work with any speech-to-text
// (a streaming vendor, a per-utterance Whisper server, the embedded decoder).
//
// Energy-based, in plain TypeScript, on 20 ms frames of 16-bit PCM:
//   - a frame is loud when its level is `thresholdDb` above an adaptive noise floor (and above an
//     absolute minimum, so digital silence and line hiss never count);
//   - speech starts after `startMs` of loud frames that also look like a voice: a zero-crossing
//     rate below that of hiss (stationary white noise crosses zero about every other sample,
//     vowels far less often) and not a keypad tone (DTMF is two pure sines: when the eight DTMF
//     frequencies hold most of a frame's energy it is a key press, which the digit path handles);
//   - speech ends after `hangoverMs` without a loud frame (the gaps between words are shorter).
// The noise floor follows quiet frames quickly downwards and slowly upwards, and creeps up even
// during "speech", so a steady noise that was loud enough to start is absorbed within seconds.
//
// Why not a library: Silero (through onnxruntime-node) brings a native runtime and a model, and
// WebRTC's VAD in WebAssembly does not know keypad tones either; energy with a noise floor does
// this job well on telephone audio, runs in microseconds per frame and is tested on generated audio.

export interface VadOptions {
  /** Rate of the PCM pushed in. */
  sampleRate: number;
  /** Loud, voice-like audio needed before speech is reported (ms). */
  startMs?: number;
  /** Quiet needed before the end of speech is reported (ms): the end-of-turn silence. */
  hangoverMs?: number;
  /** How far above the noise floor a frame must be to count as loud (dB). */
  thresholdDb?: number;
  /** Frames quieter than this (dBFS) are never speech. */
  minLevelDb?: number;
}

export type VadEvent =
  /** `atMs`: offset (ms of audio pushed) where the speech began. */
  | { type: 'speech_start'; atMs: number }
  /** `atMs`: offset where the last loud frame ended. */
  | { type: 'speech_end'; atMs: number };

export const VAD_FRAME_MS = 20;
export const DEFAULT_VAD_HANGOVER_MS = 500;
const DTMF_HZ = [697, 770, 852, 941, 1209, 1336, 1477, 1633];
/** Share of a frame's energy in the DTMF frequencies above which it is a key tone. */
const TONE_SHARE = 0.6;
/** Zero crossings per sample at or above which a frame is hiss rather than voice. */
const HISS_ZCR = 0.3;
const NO_EVENTS: readonly VadEvent[] = [];

export class EnergyVad {
  readonly frameSamples: number;
  private readonly startFrames: number;
  private readonly hangoverFrames: number;
  private readonly thresholdDb: number;
  private readonly minLevelDb: number;
  private readonly goertzel: Float64Array;
  private readonly frame: Int16Array;
  private filled = 0;
  private frames = 0;
  /** The floor starts high and drops to the first quiet frames at once. */
  private floorDb = -50;
  private speaking = false;
  private voicedRun = 0;
  private runStart = 0;
  private quietRun = 0;
  private lastLoudEnd = 0;

  constructor(options: VadOptions) {
    this.frameSamples = Math.round((options.sampleRate * VAD_FRAME_MS) / 1000);
    this.startFrames = Math.max(1, Math.round((options.startMs ?? 60) / VAD_FRAME_MS));
    this.hangoverFrames = Math.max(
      1,
      Math.round((options.hangoverMs ?? DEFAULT_VAD_HANGOVER_MS) / VAD_FRAME_MS),
    );
    this.thresholdDb = options.thresholdDb ?? 12;
    this.minLevelDb = options.minLevelDb ?? -55;
    this.frame = new Int16Array(this.frameSamples);
    this.goertzel = Float64Array.from(DTMF_HZ, (hz) => 2 * Math.cos((2 * Math.PI * hz) / options.sampleRate));
  }

  /** Whether the caller is speaking now. */
  get inSpeech(): boolean {
    return this.speaking;
  }

  /** The current noise floor (dBFS), for logs and tests. */
  get noiseFloorDb(): number {
    return this.floorDb;
  }

  /** Audio pushed so far, in ms (whole frames). */
  get offsetMs(): number {
    return this.frames * VAD_FRAME_MS;
  }

  /** Feeds audio of any length; returns the speech starts and ends it completed. */
  push(pcm: Int16Array): readonly VadEvent[] {
    let events: VadEvent[] | null = null;
    let i = 0;
    while (i < pcm.length) {
      const n = Math.min(pcm.length - i, this.frameSamples - this.filled);
      this.frame.set(pcm.subarray(i, i + n), this.filled);
      this.filled += n;
      i += n;
      if (this.filled < this.frameSamples) break;
      this.filled = 0;
      const event = this.step();
      if (event) (events ??= []).push(event);
    }
    return events ?? NO_EVENTS;
  }

  private step(): VadEvent | null {
    const start = this.frames * VAD_FRAME_MS;
    this.frames++;
    const { level, zcr, toneShare } = this.measure();
    const loud = level > Math.max(this.floorDb + this.thresholdDb, this.minLevelDb) && toneShare < TONE_SHARE;
    this.adaptFloor(level, loud);
    if (!this.speaking) {
      if (loud && zcr < HISS_ZCR) {
        if (this.voicedRun === 0) this.runStart = start;
        this.voicedRun++;
      } else {
        this.voicedRun = 0;
      }
      if (this.voicedRun < this.startFrames) return null;
      this.speaking = true;
      this.voicedRun = 0;
      this.quietRun = 0;
      this.lastLoudEnd = start + VAD_FRAME_MS;
      return { type: 'speech_start', atMs: this.runStart };
    }
    if (loud) {
      this.quietRun = 0;
      this.lastLoudEnd = start + VAD_FRAME_MS;
      return null;
    }
    if (++this.quietRun < this.hangoverFrames) return null;
    this.speaking = false;
    this.quietRun = 0;
    return { type: 'speech_end', atMs: this.lastLoudEnd };
  }

  private adaptFloor(level: number, loud: boolean): void {
    const clamped = Math.max(level, -90);
    if (clamped < this.floorDb) this.floorDb += 0.3 * (clamped - this.floorDb);
    else if (!loud) this.floorDb += 0.05 * (clamped - this.floorDb);
    // Loud for a long time: a steady noise rather than a talker, absorbed over a few seconds.
    else this.floorDb += 0.004 * (clamped - this.floorDb);
  }

  /** Level (dBFS), zero crossings per sample, and the share of energy at DTMF frequencies. */
  private measure(): { level: number; zcr: number; toneShare: number } {
    const x = this.frame;
    const n = x.length;
    let energy = 0;
    let crossings = 0;
    for (let k = 0; k < n; k++) {
      const v = x[k]!;
      energy += v * v;
      if (k > 0 && v >= 0 !== x[k - 1]! >= 0) crossings++;
    }
    const mean = energy / n;
    const level = mean > 0 ? 10 * Math.log10(mean / (32768 * 32768)) : -120;
    if (mean === 0) return { level, zcr: 0, toneShare: 0 };
    // Goertzel power at each DTMF frequency; a pure sine of amplitude A gives (A·n/2)², which is
    // n/2 times the frame's energy share of it, hence the scaling below.
    let best = 0;
    let secondBest = 0;
    for (const coeff of this.goertzel) {
      let s1 = 0;
      let s2 = 0;
      for (let k = 0; k < n; k++) {
        const s0 = x[k]! + coeff * s1 - s2;
        s2 = s1;
        s1 = s0;
      }
      const power = (s1 * s1 + s2 * s2 - coeff * s1 * s2) / ((n * n) / 2);
      if (power > best) {
        secondBest = best;
        best = power;
      } else if (power > secondBest) {
        secondBest = power;
      }
    }
    return { level, zcr: crossings / n, toneShare: (best + secondBest) / mean };
  }
}
