// The contract between the voice pipeline and every streaming speech-to-text adapter: a session
// takes mono 16-bit PCM as the caller speaks and yields interim and final transcripts, plus the
// voice-activity events turn taking and barge-in are built on.
import { ProviderFailure } from '../shared/failure.js';

/**
 * What the caller is expected to say next, from the node that listens: recognisers that decode
 * against a grammar (the embedded one) build it from these; streaming vendors may ignore them.
 */
export interface SpeechHints {
  /** Words or short phrases the node can act on (an agent's exits, a condition's keywords). */
  phrases?: string[];
  /** A number read out digit by digit is likely ("four one one"). */
  digits?: boolean;
}

export interface SttStartOptions {
  /** The agent's `stt_language` (BCP 47). */
  language?: string;
  /** Vendor model; the adapter's default when unset. */
  model?: string;
  /** Rate of the PCM the session will send; the call pipeline runs at 16000. */
  sampleRate?: number;
  /** Silence (ms) after which the vendor marks the end of speech (`speechFinal`). */
  endpointingMs?: number;
  /** Words to favour (names, product terms). */
  keywords?: string[];
  /** What the first turn is expected to hold (see SttSession.expect). */
  hints?: SpeechHints;
  /** Aborting ends the session at once; the events iterator rejects with the reason. */
  signal?: AbortSignal;
}

export type SttEvent =
  | {
      type: 'transcript';
      text: string;
      /** The text of this span will not change any more. */
      isFinal: boolean;
      /** The vendor detected the end of the speaker's utterance after this span. */
      speechFinal: boolean;
      confidence: number;
      /** Offset of the span from the start of the session's audio. */
      startMs: number;
      durationMs: number;
      /**
       * Per-utterance recognisers: how long recognising the utterance took (ms), from the end of
       * the turn being detected to this transcript. Streaming vendors leave it out.
       */
      recognitionMs?: number;
    }
  | { type: 'speech_started'; atMs: number }
  /** No new words for the vendor's utterance gap: a second end-of-turn signal, robust to noise. */
  | { type: 'utterance_end'; lastWordEndMs: number };

export interface SttSession {
  /** Sends audio: mono signed 16-bit PCM at the session's rate. */
  sendAudio(pcm: Int16Array): void;
  /** Asks the vendor to finalise what it has heard so far (a turn we end ourselves). */
  finalize(): void;
  /** What the next turn is expected to hold; recognisers without grammars leave this out. */
  expect?(hints: SpeechHints | null): void;
  /** Ends the audio and waits until the vendor has sent its last results; `events` then ends. */
  close(): Promise<void>;
  /** Transcripts and voice events, in order; rejects with SttError if the session fails. */
  readonly events: AsyncIterable<SttEvent>;
  /** Audio sent so far, in milliseconds (the vendor bills by it). */
  readonly audioMs: number;
}

export interface SttProvider {
  readonly id: string;
  /** What actually recognises, when it is not the vendor the id names (the embedded decoder). */
  readonly engine?: string;
  /** Opens a live session; rejects with SttError when the vendor refuses or cannot be reached. */
  start(options?: SttStartOptions): Promise<SttSession>;
}

export class SttError extends ProviderFailure {
  override name = 'SttError';
}
