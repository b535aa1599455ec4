// The shared body of every HTTP LLM adapter: configuration, retries before any output, timeouts,
// abort, metrics. A vendor adapter only builds its request and decodes its stream (StreamDecoder).
import type { Clock } from '../../shared/clock.js';
import { postStream } from '../shared/http-stream.js';
import type { Sleep } from '../shared/retry.js';
import { retryingStream } from '../shared/retrying-stream.js';
import { readSse, type SseEvent } from '../shared/sse.js';
import { VendorHttp, type VendorHttpOptions } from '../shared/vendor-http.js';
import { LlmTransportError, asLlmError, llmFailure } from './errors.js';
import type { LlmProvider, LlmRequest, LlmStreamEvent, LlmUsage } from './llm.types.js';

/** Turns one attempt's SSE events into contract events. A fresh decoder per attempt. */
export interface StreamDecoder {
  /** May throw LlmError (an error event from the vendor, unreadable data). */
  onEvent(ev: SseEvent): LlmStreamEvent[];
  /** The body ended: the pending tool calls and the `done` event, or a throw if it ended early. */
  finish(): LlmStreamEvent[];
}

export interface VendorRequest {
  /** Appended to the base URL (may carry a query string). */
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface LlmCallMetrics {
  provider: string;
  model: string;
  outcome: 'ok' | 'error' | 'aborted' | 'cancelled';
  /** From the call to the first text or tool call, on the monotonic clock; undefined without output. */
  timeToFirstTokenMs: number | undefined;
  durationMs: number;
  /** 1 plus the retries. */
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  finishReason?: string;
  status?: number;
}

export type { Sleep };

export interface HttpLlmOptions extends VendorHttpOptions {
  apiKey?: string;
  /** Overrides the vendor's public base URL (tests, proxies, compatible servers). */
  baseUrl?: string;
  onMetrics?: (m: LlmCallMetrics) => void;
}

export interface VendorSpec {
  id: string;
  defaultBaseUrl: string;
  /** A trailing path segment users often include in base URLs (`/v1`); dropped so it isn't doubled. */
  versionSuffix?: string;
}

export abstract class HttpLlmProvider implements LlmProvider {
  readonly id: string;
  readonly baseUrl: string;
  protected readonly apiKey: string | undefined;
  protected readonly clock: Clock;
  private readonly http: VendorHttp;
  private readonly onMetrics: ((m: LlmCallMetrics) => void) | undefined;
  private readonly keyRequired: boolean;

  constructor(spec: VendorSpec, options: HttpLlmOptions = {}) {
    this.id = spec.id;
    this.apiKey = options.apiKey || undefined;
    this.baseUrl = normalizeBaseUrl(options.baseUrl || spec.defaultBaseUrl, spec.versionSuffix);
    // A custom base URL may be a keyless compatible server (a local model, a proxy); the vendor's
    // own endpoint never is, so we fail before sending anything there without a key.
    this.keyRequired = !options.baseUrl;
    this.http = new VendorHttp(options);
    this.clock = this.http.clock;
    this.onMetrics = options.onMetrics;
  }

  /** The vendor's request for this call. */
  protected abstract buildRequest(request: LlmRequest): VendorRequest;
  protected abstract createDecoder(request: LlmRequest): StreamDecoder;

  async *stream(request: LlmRequest): AsyncGenerator<LlmStreamEvent> {
    const started = this.clock.monotonic();
    const m: LlmCallMetrics = {
      provider: this.id,
      model: request.model,
      outcome: 'cancelled',
      timeToFirstTokenMs: undefined,
      durationMs: 0,
      attempts: 0,
      inputTokens: 0,
      outputTokens: 0,
    };
    try {
      if (this.keyRequired && !this.apiKey) {
        throw new LlmTransportError(
          `${this.id}: no API key configured (set ${this.id.toUpperCase()}_API_KEY)`,
          this.id,
          'config',
        );
      }
      const vendor = this.buildRequest(request);
      const events = retryingStream<LlmStreamEvent>({
        run: (attempt) => {
          m.attempts = attempt;
          return this.attempt(vendor, request);
        },
        isOutput: (ev) => ev.type !== 'done',
        normalize: (err) => asLlmError(err, this.id),
        policy: this.http.retry,
        sleep: this.http.sleep,
        random: this.http.random,
        signal: request.signal,
      });
      for await (const ev of events) {
        if (ev.type === 'done') {
          m.inputTokens = ev.usage.inputTokens;
          m.outputTokens = ev.usage.outputTokens;
          m.finishReason = ev.finishReason;
        } else if (m.timeToFirstTokenMs === undefined) {
          m.timeToFirstTokenMs = this.clock.monotonic() - started;
        }
        yield ev;
      }
      m.outcome = 'ok';
    } catch (err) {
      m.outcome = request.signal?.aborted ? 'aborted' : 'error';
      m.status = (err as { status?: number }).status;
      throw err;
    } finally {
      m.durationMs = this.clock.monotonic() - started;
      try {
        this.onMetrics?.(m);
      } catch {
        // A broken metrics sink must not turn a good call into a failed one.
      }
    }
  }

  private async *attempt(vendor: VendorRequest, request: LlmRequest): AsyncGenerator<LlmStreamEvent> {
    const decoder = this.createDecoder(request);
    const body = postStream({
      provider: this.id,
      url: this.baseUrl + vendor.path,
      headers: { accept: 'text/event-stream', ...vendor.headers },
      body: vendor.body,
      signal: request.signal,
      clock: this.clock,
      timeouts: this.http.timeouts,
      dispatcher: this.http.dispatcher(),
      fail: llmFailure(this.id),
    });
    for await (const sse of readSse(body)) {
      for (const ev of decoder.onEvent(sse)) yield ev;
    }
    for (const ev of decoder.finish()) yield ev;
  }

  /** Closes pooled connections (tests, shutdown). */
  async close(): Promise<void> {
    await this.http.close();
  }
}

export function normalizeBaseUrl(url: string, versionSuffix?: string): string {
  let base = url.replace(/\/+$/, '');
  if (versionSuffix && base.endsWith(versionSuffix)) base = base.slice(0, -versionSuffix.length);
  return base;
}

/**
 * Anthropic and Gemini refuse a conversation that opens with the assistant, which is how a call
 * with a greeting starts; this neutral user turn goes first then.
 */
export const CONVERSATION_OPENER = '(conversation start)';

export function emptyUsage(): LlmUsage {
  return { inputTokens: 0, outputTokens: 0 };
}

export function protocolError(provider: string, message: string, cause?: unknown): LlmTransportError {
  return new LlmTransportError(`${provider}: ${message}`, provider, 'protocol', { cause });
}

/** JSON.parse for one SSE data field, with a protocol error naming the vendor. */
export function parseData<T>(provider: string, data: string): T {
  try {
    return JSON.parse(data) as T;
  } catch (err) {
    throw protocolError(provider, `unreadable stream data: ${data.slice(0, 120)}`, err);
  }
}
