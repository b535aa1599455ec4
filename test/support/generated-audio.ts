// Audio made on the spot for speech tests, at the pipeline's 16 kHz: words spoken by Debian's
// espeak-ng (through the project's own TTS adapter, so the same resampling as on a call), silence,
// white noise from a seeded generator (the same samples every run) and keypad tones.
import { EspeakTtsProvider } from '../../src/providers/tts/espeak.js';

export const RATE = 16000;

const speech = new Map<string, Int16Array>();

/** `text` as espeak-ng says it with `voice` (cached per process: each run spawns the program). */
export async function spoken(text: string, voice = 'en'): Promise<Int16Array> {
  const key = `${voice}\n${text}`;
  const cached = speech.get(key);
  if (cached) return cached;
  const parts: Int16Array[] = [];
  for await (const pcm of new EspeakTtsProvider().synthesize({ text, voice, sampleRate: RATE }))
    parts.push(pcm);
  const all = concat(...parts);
  speech.set(key, all);
  return all;
}

export function silence(ms: number): Int16Array {
  return new Int16Array((ms * RATE) / 1000);
}

/** Uniform white noise at `amplitude` peak, from a seeded generator. */
export function noise(ms: number, amplitude: number, seed = 1): Int16Array {
  let s = seed;
  return Int16Array.from({ length: (ms * RATE) / 1000 }, () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return Math.round((s / 0x7fffffff - 0.5) * 2 * amplitude);
  });
}

const ROWS: Record<string, number> = {
  '1': 697,
  '2': 697,
  '3': 697,
  '4': 770,
  '5': 770,
  '6': 770,
  '7': 852,
  '8': 852,
  '9': 852,
  '*': 941,
  '0': 941,
  '#': 941,
};
const COLS: Record<string, number> = {
  '1': 1209,
  '4': 1209,
  '7': 1209,
  '*': 1209,
  '2': 1336,
  '5': 1336,
  '8': 1336,
  '0': 1336,
  '3': 1477,
  '6': 1477,
  '9': 1477,
  '#': 1477,
};

/** A keypad key's two tones, each at `amplitude`. */
export function dtmfTone(key: string, ms: number, amplitude = 6000): Int16Array {
  const lo = ROWS[key]!;
  const hi = COLS[key]!;
  return Int16Array.from({ length: (ms * RATE) / 1000 }, (_, i) =>
    Math.round(
      amplitude * (Math.sin((2 * Math.PI * lo * i) / RATE) + Math.sin((2 * Math.PI * hi * i) / RATE)),
    ),
  );
}

/** Adds `b` into `a` (same length or shorter), clipping. */
export function mix(a: Int16Array, b: Int16Array): Int16Array {
  return Int16Array.from(a, (v, i) => Math.max(-32768, Math.min(32767, v + (b[i] ?? 0))));
}

export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Splits audio into 20 ms frames, as a call delivers it. */
export function frames(pcm: Int16Array, ms = 20): Int16Array[] {
  const n = (RATE * ms) / 1000;
  const out: Int16Array[] = [];
  for (let i = 0; i < pcm.length; i += n) out.push(pcm.subarray(i, i + n));
  return out;
}

/** A pure sine at `hz` (a voicemail beep). */
export function tone(hz: number, ms: number, amplitude = 8000): Int16Array {
  return Int16Array.from({ length: (ms * RATE) / 1000 }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / RATE)),
  );
}
