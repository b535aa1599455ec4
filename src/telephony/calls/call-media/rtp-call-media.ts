// CallMedia (src/channels/call-media.ts) over one call's RtpSession: playback is the session's
// paced sender, the caller's audio and RFC 4733 digits come from its receiver, and SIP INFO digits
// are fed in by the call host. A peer that sends a press both ways (RFC 4733 and INFO, some
// gateways do) gets one event: the same key from the other path within DUPLICATE_MS is dropped.
//
// The RtpSession takes its audio and digit callbacks at construction, so the media object exists
// first and hands the session `rtpCallbacks`; `attach` then gives it the session to play through.
import type { CallMedia } from '../../../channels/call-media.js';
import type { Clock } from '../../../shared/clock.js';
import { Listeners } from '../../../shared/listeners.js';
import type { DigitEvent } from '../../media/dtmf.js';
import type { RtpSession, RtpSessionOptions } from '../../media/rtp-session.js';

/** A press seen on one path is the same press on the other within this window. */
export const DUPLICATE_MS = 300;

type DigitPath = 'rtp' | 'info';

export class RtpCallMedia implements CallMedia {
  private rtp: RtpSession | null = null;
  private readonly audio = new Listeners<Int16Array>();
  private readonly digits = new Listeners<string>();
  private last: { digit: string; path: DigitPath; at: number } | null = null;
  private closed = false;
  /** While set, every press goes here instead of the listeners (a bridge, see divertDigits). */
  private diverted: ((digit: string) => void) | null = null;
  /** Presses delivered, by path (after de-duplication). */
  readonly digitCounts = { rtp: 0, info: 0, duplicates: 0 };
  /** Sees every frame of the far party's audio, suspended or not (the call's recording). */
  farTap: ((pcm: Int16Array) => void) | null = null;
  /** Set while a warm transfer bridges the caller elsewhere: playback is dropped, input unheard. */
  suspended = false;

  constructor(private readonly clock: Clock) {}

  /** The callbacks to construct the call's RtpSession with. */
  readonly rtpCallbacks: Pick<RtpSessionOptions, 'onAudio' | 'onDigit'> = {
    onAudio: (pcm) => {
      this.farTap?.(pcm);
      if (this.closed || this.suspended) return;
      this.audio.emit(pcm);
    },
    onDigit: (event: DigitEvent) => this.digit(event.digit, 'rtp'),
  };

  attach(rtp: RtpSession): void {
    this.rtp = rtp;
  }

  /** A digit from a SIP INFO request (application/dtmf-relay or application/dtmf). */
  infoDigit(digit: string): void {
    this.digit(digit, 'info');
  }

  /**
   * Sends every press (both paths, de-duplicated) to `listener` instead of the call's listeners,
   * suspended or not, until the returned function is called: a warm transfer's bridge passes the
   * caller's keys on to the human this way, SIP INFO ones included.
   */
  divertDigits(listener: (digit: string) => void): () => void {
    this.diverted = listener;
    return () => {
      if (this.diverted === listener) this.diverted = null;
    };
  }

  private digit(digit: string, path: DigitPath): void {
    if (this.closed || (this.suspended && !this.diverted)) return;
    const now = this.clock.monotonic();
    const last = this.last;
    if (last && last.digit === digit && last.path !== path && now - last.at < DUPLICATE_MS) {
      this.digitCounts.duplicates++;
      this.last = null;
      return;
    }
    this.last = { digit, path, at: now };
    this.digitCounts[path]++;
    if (this.diverted) return this.diverted(digit);
    this.digits.emit(digit);
  }

  play(pcm: Int16Array): void {
    if (this.closed || this.suspended || !this.rtp) return;
    this.rtp.enqueue(pcm);
  }

  get queuedMs(): number {
    return this.rtp && !this.closed ? this.rtp.sender.queuedMs : 0;
  }

  stopPlayback(): void {
    // Closed, the queue was cleared already and nothing is queued again: the prompt's stop and the
    // channel's close that follow a hang-up would each be one more message to the media worker.
    if (this.closed) return;
    this.rtp?.sender.clear();
  }

  onAudio(listener: (pcm: Int16Array) => void): () => void {
    return this.audio.add(listener);
  }

  onDigit(listener: (digit: string) => void): () => void {
    return this.digits.add(listener);
  }

  /** The call is over: nothing more is played or heard. */
  close(): void {
    this.stopPlayback();
    this.closed = true;
    this.audio.clear();
    this.digits.clear();
    this.diverted = null;
  }
}
