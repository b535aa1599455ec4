// A call's media and control sides for phone-channel tests, on an injected (fake) clock: the media
// records what is played and sends it at real-time pace on that clock (queuedMs drains as the clock
// advances), and lets the test push caller audio frames and key presses.
import type { CallControl, CallMedia } from '../../src/channels/call-media.js';
import { CALL_PCM_RATE } from '../../src/channels/call-media.js';
import type {
  DialOptions,
  DialOutcome,
  TransferOptions,
  TransferOutcome,
} from '../../src/channels/channel.js';
import type { Clock } from '../../src/shared/clock.js';

const SAMPLES_PER_MS = CALL_PCM_RATE / 1000;

export class FakeCallMedia implements CallMedia {
  /** Every buffer play() got, copied, in order. */
  readonly played: Int16Array[] = [];
  /** stopPlayback() calls, with the audio (ms) still queued at each. */
  readonly stops: { at: number; droppedMs: number }[] = [];
  private sendEndsAt = 0;
  private readonly audioListeners = new Set<(pcm: Int16Array) => void>();
  private readonly digitListeners = new Set<(digit: string) => void>();
  private playWaiters: { samples: number; resolve: () => void }[] = [];

  constructor(private readonly clock: Clock) {}

  play(pcm: Int16Array): void {
    this.played.push(pcm.slice());
    const now = this.clock.monotonic();
    this.sendEndsAt = Math.max(this.sendEndsAt, now) + pcm.length / SAMPLES_PER_MS;
    const total = this.playedSamples;
    this.playWaiters = this.playWaiters.filter((w) => (total >= w.samples ? (w.resolve(), false) : true));
  }

  get queuedMs(): number {
    return Math.max(0, this.sendEndsAt - this.clock.monotonic());
  }

  stopPlayback(): void {
    this.stops.push({ at: this.clock.monotonic(), droppedMs: this.queuedMs });
    this.sendEndsAt = this.clock.monotonic();
  }

  onAudio(listener: (pcm: Int16Array) => void): () => void {
    this.audioListeners.add(listener);
    return () => this.audioListeners.delete(listener);
  }

  onDigit(listener: (digit: string) => void): () => void {
    this.digitListeners.add(listener);
    return () => this.digitListeners.delete(listener);
  }

  /** Samples handed to play() so far. */
  get playedSamples(): number {
    return this.played.reduce((n, p) => n + p.length, 0);
  }

  /** Everything played, as one buffer. */
  playedPcm(): Int16Array {
    const out = new Int16Array(this.playedSamples);
    let o = 0;
    for (const p of this.played) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }

  /** Resolves once play() has been given at least this many samples in all. */
  waitForPlayed(samples: number): Promise<void> {
    if (this.playedSamples >= samples) return Promise.resolve();
    return new Promise((resolve) => this.playWaiters.push({ samples, resolve }));
  }

  /** A frame of the caller's audio (20 ms of a tone by default). */
  pushAudio(pcm: Int16Array = tone(20)): void {
    for (const l of [...this.audioListeners]) l(pcm);
  }

  /** One key press per character. */
  pushDigit(keys: string): void {
    for (const key of keys) for (const l of [...this.digitListeners]) l(key);
  }

  get listenerCounts(): { audio: number; digit: number } {
    return { audio: this.audioListeners.size, digit: this.digitListeners.size };
  }
}

/** `ms` of a 440 Hz tone at the call rate. */
export function tone(ms: number, amplitude = 8000): Int16Array {
  const n = Math.round(ms * SAMPLES_PER_MS);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++)
    out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / CALL_PCM_RATE));
  return out;
}

export type ControlCall =
  | { op: 'transfer'; destination: string; mode: string; announcement?: string }
  | { op: 'dial'; destination: string; from?: string }
  | { op: 'hangup' };

/** Records what the channel asked of the SIP side and answers with scripted outcomes. */
export class FakeCallControl implements CallControl {
  readonly calls: ControlCall[] = [];
  transferOutcome: TransferOutcome = { status: 'success' };
  dialOutcome: DialOutcome = { status: 'answered', callId: 'leg-2' };

  async transfer(destination: string, options: TransferOptions): Promise<TransferOutcome> {
    this.calls.push({
      op: 'transfer',
      destination,
      mode: options.mode,
      ...(options.announcement !== undefined ? { announcement: options.announcement } : {}),
    });
    return this.transferOutcome;
  }

  async dial(destination: string, options: DialOptions): Promise<DialOutcome> {
    this.calls.push({ op: 'dial', destination, ...(options.from ? { from: options.from } : {}) });
    return this.dialOutcome;
  }

  async hangup(): Promise<void> {
    this.calls.push({ op: 'hangup' });
  }
}
