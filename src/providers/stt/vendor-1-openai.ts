// stt_vendor_1 with STT_VENDOR_1_PROTOCOL=openai: the OpenAI-compatible transcription endpoint
// that local Whisper servers (faster-whisper, whisper.cpp's server, vLLM) also speak. Per
// utterance, cut by the VAD (utterance-session.ts):
//
//   POST {base}/v1/audio/transcriptions   multipart/form-data
//     file             the utterance as a 16-bit mono WAV (utterance.wav, audio/wav)
//     model            STT_VENDOR_1_MODEL, default whisper-1
//     language         ISO-639-1, from the agent's stt_language (en-US → en)
//     response_format  json → {"text": "…"}
//     prompt           the turn's expected phrases, when the node names some (Whisper uses the
//                      prompt as preceding context, which favours those words)
//   Authorization: Bearer <STT_VENDOR_1_API_KEY> when a key is set (local servers need none)
//
// One attempt per utterance with a deadline on the injected clock: a retry would answer the
// caller seconds late, and the next turn is a fresh chance anyway.
import { systemClock, type Clock } from '../../shared/clock.js';
import { isRetryableStatus, vendorErrorMessage } from '../shared/failure.js';
import { wavHeader } from '../tts/wav.js';
import { SttError } from './stt.types.js';
import type { UtteranceRecognizer, UtteranceRequest, UtteranceResult } from './utterance-session.js';

export const OPENAI_STT_DEFAULT_BASE_URL = 'https://api.openai.com';
export const OPENAI_STT_DEFAULT_MODEL = 'whisper-1';

export interface OpenAiTranscriptionOptions {
  apiKey?: string;
  /** With or without a trailing /v1. */
  baseUrl?: string;
  model?: string;
  clock?: Clock;
  /** Whole-request deadline (ms). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The utterance as a WAV file. */
export function wavFile(pcm: Int16Array, sampleRate: number): Uint8Array {
  const data = Buffer.alloc(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) data.writeInt16LE(pcm[i]!, i * 2);
  return Buffer.concat([wavHeader(sampleRate, data.length), data]);
}

/** BCP 47 → the ISO-639-1 code the endpoint takes (`en-US` → `en`). */
export function isoLanguage(language: string | undefined): string | undefined {
  const primary = language?.split(/[-_]/)[0]?.toLowerCase();
  return primary && /^[a-z]{2}$/.test(primary) ? primary : undefined;
}

export class OpenAiTranscriptionRecognizer implements UtteranceRecognizer {
  readonly baseUrl: string;
  private readonly keyRequired: boolean;
  private readonly clock: Clock;

  constructor(
    private readonly options: OpenAiTranscriptionOptions = {},
    readonly id = 'stt_vendor_1',
  ) {
    this.baseUrl = (options.baseUrl || OPENAI_STT_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.keyRequired = !options.baseUrl;
    this.clock = options.clock ?? systemClock;
  }

  async recognize(request: UtteranceRequest): Promise<UtteranceResult> {
    request.signal.throwIfAborted();
    if (this.keyRequired && !this.options.apiKey) {
      throw new SttError(`${this.id}: no API key configured (set STT_VENDOR_1_API_KEY)`, this.id, 'config');
    }
    const form = new FormData();
    form.append(
      'file',
      new Blob([wavFile(request.pcm, request.sampleRate)], { type: 'audio/wav' }),
      'utterance.wav',
    );
    form.append('model', this.options.model || OPENAI_STT_DEFAULT_MODEL);
    form.append('response_format', 'json');
    const language = isoLanguage(request.language);
    if (language) form.append('language', language);
    const phrases = request.hints?.phrases?.filter((p) => p.trim() !== '') ?? [];
    if (phrases.length > 0) form.append('prompt', phrases.join(', '));

    const controller = new AbortController();
    const onAbort = (): void => controller.abort(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = this.clock.setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, this.options.timeoutMs ?? 15_000);
    try {
      const res = await (this.options.fetch ?? fetch)(`${this.baseUrl}/v1/audio/transcriptions`, {
        method: 'POST',
        body: form,
        headers: this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {},
        signal: controller.signal,
      });
      const body = await res.text();
      if (!res.ok) {
        throw new SttError(
          `${this.id}: HTTP ${res.status}: ${vendorErrorMessage(body) || res.statusText}`,
          this.id,
          'http',
          { status: res.status, retryable: isRetryableStatus(res.status) },
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new SttError(`${this.id}: the transcription was not JSON`, this.id, 'protocol');
      }
      const text = (parsed as { text?: unknown }).text;
      if (typeof text !== 'string') {
        throw new SttError(`${this.id}: the transcription has no "text"`, this.id, 'protocol');
      }
      return { text };
    } catch (err) {
      if (request.signal.aborted) throw request.signal.reason;
      if (err instanceof SttError) throw err;
      if (timedOut)
        throw new SttError(`${this.id}: transcription timed out`, this.id, 'timeout', { retryable: true });
      throw new SttError(`${this.id}: ${(err as Error).message}`, this.id, 'network', {
        retryable: true,
        cause: err,
      });
    } finally {
      this.clock.clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
    }
  }
}
