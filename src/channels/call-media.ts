// The two seams between the phone channel and the telephony side. The channel turns workflow
// requests into speech and listening; it never sees SIP or RTP. The call controller gives it:
//   CallMedia: the call's audio both ways at the pipeline rate, and keypad digits (RFC 4733 or
//              SIP INFO, already reduced to one event per press);
//   CallControl: what only the SIP side can do (REFER, a second leg, BYE).
import type { DialOptions, DialOutcome, TransferOptions, TransferOutcome } from './channel.js';

/** Sample rate of every PCM buffer crossing these seams (mono, signed 16-bit). */
export const CALL_PCM_RATE = 16000;

export interface CallMedia {
  /** Queues PCM for paced sending to the caller (any length; the sender frames it). */
  play(pcm: Int16Array): void;
  /** Milliseconds of queued audio not sent yet (0 once playback has drained). */
  readonly queuedMs: number;
  /** Drops everything queued (barge-in, abort). */
  stopPlayback(): void;
  /** The caller's audio, one frame at a time as it plays out of the jitter buffer. */
  onAudio(listener: (pcm: Int16Array) => void): () => void;
  /** One event per key press, whichever way it came (RFC 4733 or SIP INFO). */
  onDigit(listener: (digit: string) => void): () => void;
}

export interface CallControl {
  /** Blind (REFER) or warm (second leg, announcement, bridge) transfer of this call. */
  transfer(destination: string, options: TransferOptions): Promise<TransferOutcome>;
  /** A new outbound call leg (the `dial` node). */
  dial(destination: string, options: DialOptions): Promise<DialOutcome>;
  /** Ends the call (BYE); idempotent. */
  hangup(): Promise<void>;
}
