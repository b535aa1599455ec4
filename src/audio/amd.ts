// Answering-machine detection from the audio alone: the classic energy-and-cadence rules (the
// approach of Asterisk's AMD application). A person answers with a short word or two ("Hello?")
// and then waits for the caller; a voicemail greeting talks on ("Hi, you've reached Sam, I can't
// take your call…"). So, on 20 ms frames of 16-bit PCM, with a frame counted as voice when its mean
// absolute level reaches `silenceThreshold`:
//   - voice of at least `minWordMs` is a word; a word ends after `betweenWordsMs` of silence;
//   - `maxWords` words, one word longer than `maxWordMs`, or more than `greetingMs` of voice in
//     all is a greeting, not a person: machine;
//   - after some voice, `afterGreetingSilenceMs` of silence means the party stopped to listen:
//     human;
//   - nothing but silence for `initialSilenceMs`: unknown (Asterisk calls this a machine; dead
//     air is no evidence either way, and many people answer an unknown number without a word);
//   - no verdict within `totalMs`: unknown.
// The defaults are Asterisk's amd.conf defaults except `maxWords` (3: its current sample says
// 2, which takes "Hello, hello?" for a machine) and `totalMs` (4000 instead of 5000: the verdict
// has to come before the workflow's first words, so the wait is bounded by it).
import { FrameCutter } from './frames.js';

export type AnsweredBy = 'human' | 'machine' | 'unknown';

export interface AmdOptions {
  sampleRate: number;
  initialSilenceMs?: number;
  greetingMs?: number;
  afterGreetingSilenceMs?: number;
  totalMs?: number;
  minWordMs?: number;
  betweenWordsMs?: number;
  maxWords?: number;
  maxWordMs?: number;
  /** Mean absolute sample value (0..32767) below which a frame is silence. */
  silenceThreshold?: number;
}

export type AmdCause =
  | 'initial_silence'
  | 'after_greeting_silence'
  | 'long_greeting'
  | 'max_words'
  | 'max_word_length'
  | 'too_long';

export interface AmdVerdict {
  answeredBy: AnsweredBy;
  cause: AmdCause;
  /** Milliseconds of audio analysed when the verdict fell. */
  atMs: number;
  words: number;
}

export const AMD_DEFAULTS = {
  initialSilenceMs: 2500,
  greetingMs: 1500,
  afterGreetingSilenceMs: 800,
  totalMs: 4000,
  minWordMs: 100,
  betweenWordsMs: 50,
  maxWords: 3,
  maxWordMs: 5000,
  silenceThreshold: 256,
} as const;

const FRAME_MS = 20;

export class AnsweringMachineDetector {
  private readonly o: Required<AmdOptions>;
  private readonly frames: FrameCutter;
  private elapsed = 0;
  private silence = 0;
  private voiceRun = 0;
  private voiceTotal = 0;
  private words = 0;
  private inWord = false;
  private heardVoice = false;
  verdict: AmdVerdict | null = null;

  constructor(options: AmdOptions) {
    this.o = { ...AMD_DEFAULTS, ...options };
    this.frames = new FrameCutter((this.o.sampleRate * FRAME_MS) / 1000);
  }

  /** Feeds audio of any length; returns the verdict once there is one (then always the same). */
  push(pcm: Int16Array): AmdVerdict | null {
    if (this.verdict) return this.verdict;
    this.frames.push(pcm, (f) => {
      this.frame(f);
      return this.verdict !== null;
    });
    return this.verdict;
  }

  private frame(f: Int16Array): void {
    let sum = 0;
    for (let i = 0; i < f.length; i++) sum += Math.abs(f[i]!);
    const voice = sum / f.length >= this.o.silenceThreshold;
    this.elapsed += FRAME_MS;
    if (voice) this.voiceFrame();
    else this.silentFrame();
    if (!this.verdict && this.elapsed >= this.o.totalMs) this.decide('unknown', 'too_long');
  }

  private silentFrame(): void {
    this.silence += FRAME_MS;
    if (this.inWord && this.silence >= this.o.betweenWordsMs) this.inWord = false;
    if (this.silence >= this.o.betweenWordsMs) this.voiceRun = 0;
    if (!this.heardVoice && this.silence >= this.o.initialSilenceMs) {
      this.decide('unknown', 'initial_silence');
    } else if (this.heardVoice && this.silence >= this.o.afterGreetingSilenceMs) {
      this.decide('human', 'after_greeting_silence');
    }
  }

  private voiceFrame(): void {
    this.voiceRun += FRAME_MS;
    this.voiceTotal += FRAME_MS;
    if (this.voiceRun >= this.o.minWordMs) {
      // A blip shorter than a word neither starts the greeting nor resets the silence count.
      this.silence = 0;
      this.heardVoice = true;
      if (!this.inWord) {
        this.inWord = true;
        this.words++;
      }
    }
    if (this.words >= this.o.maxWords) this.decide('machine', 'max_words');
    else if (this.voiceRun >= this.o.maxWordMs) this.decide('machine', 'max_word_length');
    else if (this.voiceTotal >= this.o.greetingMs) this.decide('machine', 'long_greeting');
  }

  private decide(answeredBy: AnsweredBy, cause: AmdCause): void {
    this.verdict ??= { answeredBy, cause, atMs: this.elapsed, words: this.words };
  }
}
