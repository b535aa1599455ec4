// tts_vendor_1: ElevenLabs-style HTTP streaming synthesis. POST
// {base}/v1/text-to-speech/{voice_id}/stream?output_format=pcm_<rate> (or ulaw_8000) with
// `xi-api-key`; the body streams raw audio bytes (little-endian 16-bit PCM, or µ-law) as the
// vendor synthesises them.
import { postStream } from '../shared/http-stream.js';
import { retryingStream } from '../shared/retrying-stream.js';
import { VendorHttp, type VendorHttpOptions } from '../shared/vendor-http.js';
import { Pcm16Reader, RateConverter, decodeUlaw } from './pcm.js';
import {
  DEFAULT_TTS_SAMPLE_RATE,
  TtsError,
  asTtsError,
  ttsFailure,
  type TtsProvider,
  type TtsRequest,
} from './tts.types.js';

export const ELEVENLABS_DEFAULT_BASE_URL = 'https://api.elevenlabs.io';
/** The vendor's low-latency model, the usual choice for phone conversations. */
export const ELEVENLABS_DEFAULT_MODEL = 'eleven_flash_v2_5';
/** PCM rates the vendor streams natively; any other rate is resampled from 16 kHz. */
export const ELEVENLABS_PCM_RATES = [8000, 16000, 22050, 24000, 44100, 48000];

export interface StreamingTtsOptions extends VendorHttpOptions {
  apiKey?: string;
  baseUrl?: string;
  modelId?: string;
  /** `ulaw` asks for µ-law at 8 kHz (a third of the bytes, what phone legs carry anyway). */
  format?: 'pcm' | 'ulaw';
  voiceSettings?: Record<string, unknown>;
  onMetrics?: (m: TtsCallMetrics) => void;
}

export interface TtsCallMetrics {
  provider: string;
  outcome: 'ok' | 'error' | 'aborted' | 'cancelled';
  /** Billing unit of the vendor. */
  characters: number;
  timeToFirstAudioMs: number | undefined;
  durationMs: number;
  /** Audio produced, in milliseconds. */
  audioMs: number;
  attempts: number;
}

export class StreamingTtsProvider implements TtsProvider {
  readonly id: string;
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly keyRequired: boolean;
  private readonly http: VendorHttp;

  constructor(
    private readonly options: StreamingTtsOptions = {},
    id = 'tts_vendor_1',
  ) {
    this.id = id;
    this.apiKey = options.apiKey || undefined;
    this.baseUrl = (options.baseUrl || ELEVENLABS_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.keyRequired = !options.baseUrl;
    this.http = new VendorHttp(options);
  }

  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    const rate = request.sampleRate ?? DEFAULT_TTS_SAMPLE_RATE;
    const started = this.http.clock.monotonic();
    const m: TtsCallMetrics = {
      provider: this.id,
      outcome: 'cancelled',
      characters: request.text.length,
      timeToFirstAudioMs: undefined,
      durationMs: 0,
      audioMs: 0,
      attempts: 0,
    };
    try {
      if (this.keyRequired && !this.apiKey) {
        throw new TtsError(
          `${this.id}: no API key configured (set ${this.id.toUpperCase()}_API_KEY)`,
          this.id,
          'config',
        );
      }
      if (!request.text.trim()) {
        m.outcome = 'ok';
        return;
      }
      const chunks = retryingStream<Int16Array>({
        run: (attempt) => {
          m.attempts = attempt;
          return this.attempt(request, rate);
        },
        isOutput: (pcm) => pcm.length > 0,
        normalize: (err) => asTtsError(err, this.id),
        policy: this.http.retry,
        sleep: this.http.sleep,
        random: this.http.random,
        signal: request.signal,
      });
      for await (const pcm of chunks) {
        if (pcm.length === 0) continue;
        m.timeToFirstAudioMs ??= this.http.clock.monotonic() - started;
        m.audioMs += (pcm.length * 1000) / rate;
        yield pcm;
      }
      m.outcome = 'ok';
    } catch (err) {
      m.outcome = request.signal?.aborted ? 'aborted' : 'error';
      throw err;
    } finally {
      m.durationMs = this.http.clock.monotonic() - started;
      try {
        this.options.onMetrics?.(m);
      } catch {
        // A broken metrics sink must not turn a good call into a failed one.
      }
    }
  }

  private async *attempt(request: TtsRequest, rate: number): AsyncGenerator<Int16Array> {
    const ulaw = this.options.format === 'ulaw';
    const vendorRate = ulaw ? 8000 : ELEVENLABS_PCM_RATES.includes(rate) ? rate : DEFAULT_TTS_SAMPLE_RATE;
    const outputFormat = ulaw ? 'ulaw_8000' : `pcm_${vendorRate}`;
    const body: Record<string, unknown> = {
      text: request.text,
      model_id: this.options.modelId ?? ELEVENLABS_DEFAULT_MODEL,
    };
    if (request.language) body.language_code = request.language.split('-')[0];
    if (this.options.voiceSettings) body.voice_settings = this.options.voiceSettings;
    const headers: Record<string, string> = {};
    if (this.apiKey) headers['xi-api-key'] = this.apiKey;
    const bytes = postStream({
      provider: this.id,
      url: `${this.baseUrl}/v1/text-to-speech/${encodeURIComponent(request.voice)}/stream?output_format=${outputFormat}`,
      headers,
      body,
      signal: request.signal,
      clock: this.http.clock,
      timeouts: this.http.timeouts,
      dispatcher: this.http.dispatcher(),
      fail: ttsFailure(this.id),
    });
    const reader = new Pcm16Reader();
    const converter = new RateConverter(vendorRate, rate);
    for await (const chunk of bytes) {
      const pcm = ulaw ? decodeUlaw(chunk) : reader.push(chunk);
      if (pcm.length > 0) yield converter.process(pcm);
    }
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}
