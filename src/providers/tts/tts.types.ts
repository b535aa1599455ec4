// The contract between the voice pipeline and every text-to-speech adapter: text in, mono 16-bit
// PCM out at the rate the caller asks for, streamed so playback starts before synthesis ends.
import { ProviderFailure, type FailureFactory } from '../shared/failure.js';

export interface TtsRequest {
  text: string;
  /** The agent's `tts_voice` (a vendor voice id, or an espeak-ng voice name for the local engine). */
  voice: string;
  /** BCP 47 language code, when the voice speaks several. */
  language?: string;
  /** Output sample rate in Hz; the call pipeline runs at 16000. */
  sampleRate?: number;
  signal?: AbortSignal;
}

export interface TtsProvider {
  /** tts_vendor_1, or the local engine standing in for it. */
  readonly id: string;
  /**
   * Streams mono signed 16-bit PCM at `sampleRate` (default 16000) in chunks of any length.
   * Throws TtsError on failure after the adapter's own retries; an abort rejects with the signal's
   * reason.
   */
  synthesize(request: TtsRequest): AsyncIterable<Int16Array>;
}

export const DEFAULT_TTS_SAMPLE_RATE = 16000;

export class TtsError extends ProviderFailure {
  override name = 'TtsError';
}

export function ttsFailure(provider: string): FailureFactory {
  return (message, kind, details) => new TtsError(message, provider, kind, details);
}

export function asTtsError(err: unknown, provider: string): TtsError {
  if (err instanceof TtsError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new TtsError(`${provider}: ${message}`, provider, 'network', { retryable: true, cause: err });
}
