// The ringback tone a caller hears while a second leg of their call (a warm transfer's or a dial
// node's) rings and the far end sends no early media of its own. The tone is generated at the
// pipeline rate (16 kHz) and queued on the caller's RTP session, whose sender encodes it in the
// caller's codec (PCMU, PCMA or Opus) like any other audio we play.
//
// The tone is the node's `SIP_RINGBACK` (config.ts), one of ITU-T E.180's national ringing tones:
//   us   440 + 480 Hz, 2 s on, 4 s off (North America; the default)
//   uk   400 + 450 Hz, 0.4 s on, 0.2 s off, 0.4 s on, 2 s off (the UK's double ring)
//   eu   425 Hz, 1 s on, 4 s off (the CEPT tone most of continental Europe uses)
//   off  no tone (the caller hears silence until early media or the answer)
// Each component is sent at −19 dBm0, the level North American ringback uses.
//
// Feeding: a timer every 100 ms keeps 200–300 ms of tone queued, so a stalled event loop costs no
// gap and `stop()` (which drops what is queued) silences the caller within one frame.
import { PIPELINE_RATE } from '../../../audio/codecs/pipeline-codec.js';
import type { SipRingback } from '../../../config/config.js';
import type { Clock, TimerHandle } from '../../../shared/clock.js';

export interface RingbackCadence {
  /** Frequencies sounded together (Hz). */
  readonly frequencies: readonly number[];
  /** Milliseconds on, off, on, off …; repeats from the start. */
  readonly pattern: readonly number[];
}

export const RINGBACK_TONES = {
  us: { frequencies: [440, 480], pattern: [2000, 4000] },
  uk: { frequencies: [400, 450], pattern: [400, 200, 400, 2000] },
  eu: { frequencies: [425], pattern: [1000, 4000] },
} as const satisfies Record<string, RingbackCadence>;

/** The cadence `SIP_RINGBACK` names; null for `off`. */
export function ringbackCadence(name: SipRingback): RingbackCadence | null {
  return name === 'off' ? null : RINGBACK_TONES[name];
}

/** Peak amplitude of one component at −19 dBm0 (0 dBm0 = 3.14 dB below a full-scale sine). */
const COMPONENT_PEAK = Math.round(32767 * 10 ** (-3.14 / 20) * 10 ** (-19 / 20));
const FEED_EVERY_MS = 100;
const LOW_WATER_MS = 200;
const HIGH_WATER_MS = 300;
const CHUNK = PIPELINE_RATE / 50; // 20 ms

/** Where the tone goes: the caller's RTP session (its sender's queue). */
export interface ToneSink {
  enqueue(pcm: Int16Array): void;
  readonly sender: { readonly queuedMs: number; clear(): void };
}

/** `length` samples of the cadence from sample `from` on (a pure function: tests read it). */
export function ringbackSamples(cadence: RingbackCadence, from: number, length: number): Int16Array {
  const out = new Int16Array(length);
  const cycle = cadence.pattern.reduce((a, b) => a + b, 0) * (PIPELINE_RATE / 1000);
  for (let i = 0; i < length; i++) {
    const n = from + i;
    let at = (n % cycle) / (PIPELINE_RATE / 1000);
    let on = true;
    for (const ms of cadence.pattern) {
      if (at < ms) break;
      at -= ms;
      on = !on;
    }
    if (!on) continue;
    let v = 0;
    for (const f of cadence.frequencies) v += Math.sin((2 * Math.PI * f * n) / PIPELINE_RATE);
    out[i] = Math.round(v * COMPONENT_PEAK);
  }
  return out;
}

/** One caller's ringback: `start` (again: nothing), `stop` (drops the queued rest at once). */
export class RingbackTone {
  private timer: TimerHandle | null = null;
  private sample = 0;
  private playing = false;

  constructor(
    private readonly clock: Clock,
    private readonly sink: ToneSink,
    private readonly cadence: RingbackCadence | null,
  ) {}

  get running(): boolean {
    return this.playing;
  }

  start(): void {
    if (this.playing || !this.cadence) return;
    this.playing = true;
    this.feed();
  }

  stop(): void {
    if (!this.playing) return;
    this.playing = false;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.sink.sender.clear();
  }

  private feed(): void {
    this.timer = null;
    if (!this.playing || !this.cadence) return;
    if (this.sink.sender.queuedMs < LOW_WATER_MS) {
      const frames = Math.ceil((HIGH_WATER_MS - this.sink.sender.queuedMs) / 20);
      const pcm = ringbackSamples(this.cadence, this.sample, frames * CHUNK);
      this.sample += pcm.length;
      this.sink.enqueue(pcm);
    }
    this.timer = this.clock.setTimeout(() => this.feed(), FEED_EVERY_MS);
  }
}
