// stt_vendor_1: Deepgram-style live transcription over a WebSocket. Connect to
// {base}/v1/listen?model=…&encoding=linear16&sample_rate=…&interim_results=true… with
// `Authorization: Token <key>`; binary frames carry the audio up, JSON text frames come down
// (Results with is_final / speech_final, SpeechStarted, UtteranceEnd, Metadata). Control
// messages: KeepAlive during silence, Finalize to flush a turn, CloseStream to end.
import { endianness } from 'node:os';
import WebSocket from 'ws';
import { systemClock, type Clock, type TimerHandle } from '../../shared/clock.js';
import { AsyncQueue } from '../shared/async-queue.js';
import { vendorErrorMessage } from '../shared/failure.js';
import {
  SttError,
  type SttEvent,
  type SttProvider,
  type SttSession,
  type SttStartOptions,
} from './stt.types.js';

export const DEEPGRAM_DEFAULT_BASE_URL = 'wss://api.deepgram.com';
export const DEEPGRAM_DEFAULT_MODEL = 'nova-3';

export interface LiveSttOptions {
  apiKey?: string;
  /** ws(s):// or http(s):// (mapped to ws(s)://); a trailing /v1 is dropped. */
  baseUrl?: string;
  model?: string;
  clock?: Clock;
  /** Opening handshake deadline. */
  connectTimeoutMs?: number;
  /** The vendor drops a socket after ~10 s without data: a KeepAlive goes out after this much silence. */
  keepAliveMs?: number;
  /** How long close() waits for the vendor's last results before cutting the socket. */
  closeTimeoutMs?: number;
  /** Gap without new words that yields an `utterance_end` event. */
  utteranceEndMs?: number;
}

export function toWebSocketBase(url: string): string {
  return url
    .replace(/^http(s?):\/\//i, 'ws$1://')
    .replace(/\/+$/, '')
    .replace(/\/v1$/, '');
}

export class LiveSttProvider implements SttProvider {
  readonly id: string;
  readonly baseUrl: string;
  private readonly keyRequired: boolean;
  private readonly clock: Clock;

  constructor(
    private readonly options: LiveSttOptions = {},
    id = 'stt_vendor_1',
  ) {
    this.id = id;
    this.baseUrl = toWebSocketBase(options.baseUrl || DEEPGRAM_DEFAULT_BASE_URL);
    this.keyRequired = !options.baseUrl;
    this.clock = options.clock ?? systemClock;
  }

  /** The listen URL for these options (exposed for logs and tests). */
  listenUrl(options: SttStartOptions = {}): string {
    const model = options.model ?? this.options.model ?? DEEPGRAM_DEFAULT_MODEL;
    const q = new URLSearchParams({
      model,
      encoding: 'linear16',
      sample_rate: String(options.sampleRate ?? 16000),
      channels: '1',
      interim_results: 'true',
      endpointing: String(options.endpointingMs ?? 300),
      utterance_end_ms: String(this.options.utteranceEndMs ?? 1000),
      vad_events: 'true',
      smart_format: 'true',
    });
    if (options.language) q.set('language', options.language);
    // Newer models take key terms; older ones boost keywords.
    for (const k of options.keywords ?? []) q.append(model.startsWith('nova-3') ? 'keyterm' : 'keywords', k);
    return `${this.baseUrl}/v1/listen?${q.toString()}`;
  }

  start(options: SttStartOptions = {}): Promise<SttSession> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.keyRequired && !this.options.apiKey) {
      return Promise.reject(
        new SttError(
          `${this.id}: no API key configured (set ${this.id.toUpperCase()}_API_KEY)`,
          this.id,
          'config',
        ),
      );
    }
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers.authorization = `Token ${this.options.apiKey}`;
    const ws = new WebSocket(this.listenUrl(options), { headers, perMessageDeflate: false });
    return new Promise<SttSession>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const fail = (err: unknown) =>
        settle(() => {
          ws.terminate();
          reject(err);
        });
      const timer = this.clock.setTimeout(
        () => fail(new SttError(`${this.id}: connect timeout`, this.id, 'timeout', { retryable: true })),
        this.options.connectTimeoutMs ?? 5000,
      );
      const onAbort = () => fail(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      ws.once('open', () =>
        settle(() => resolve(new LiveSttSession(ws, this.id, this.clock, this.options, options))),
      );
      ws.once('unexpected-response', (req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          req.destroy();
          const status = res.statusCode ?? 0;
          fail(
            new SttError(
              `${this.id}: HTTP ${status}: ${vendorErrorMessage(body) || res.statusMessage}`,
              this.id,
              'http',
              {
                status,
                retryable: status === 429 || status >= 500,
              },
            ),
          );
        });
      });
      ws.on('error', (err) =>
        fail(new SttError(`${this.id}: ${err.message}`, this.id, 'network', { retryable: true, cause: err })),
      );
    });
  }
}

interface VendorMessage {
  type?: string;
  is_final?: boolean;
  speech_final?: boolean;
  start?: number;
  duration?: number;
  channel?: { alternatives?: { transcript?: string; confidence?: number }[] };
  timestamp?: number;
  last_word_end?: number;
  description?: string;
  message?: string;
}

const LITTLE_ENDIAN = endianness() === 'LE';

class LiveSttSession implements SttSession {
  readonly events = new AsyncQueue<SttEvent>();
  audioMs = 0;
  private closing = false;
  private lastSentAt: number;
  private keepAlive: TimerHandle | undefined;
  private readonly closed: Promise<void>;
  private readonly rate: number;

  constructor(
    private readonly ws: WebSocket,
    private readonly provider: string,
    private readonly clock: Clock,
    private readonly options: LiveSttOptions,
    start: SttStartOptions,
  ) {
    this.rate = start.sampleRate ?? 16000;
    this.lastSentAt = clock.monotonic();
    this.scheduleKeepAlive();
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(String(data));
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        if (this.keepAlive) clock.clearTimeout(this.keepAlive);
        if (this.closing || code === 1000) this.events.end();
        else {
          this.events.fail(
            new SttError(
              `${provider}: connection closed (${code}${reason.length ? ` ${reason}` : ''})`,
              provider,
              'stream',
              {
                retryable: code === 1011 || code === 1006,
              },
            ),
          );
        }
        start.signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
    ws.on('error', (err) =>
      this.events.fail(new SttError(`${provider}: ${err.message}`, provider, 'network', { cause: err })),
    );
    const onAbort = () => {
      this.events.fail(start.signal?.reason);
      ws.terminate();
    };
    start.signal?.addEventListener('abort', onAbort, { once: true });
  }

  sendAudio(pcm: Int16Array): void {
    if (this.closing || this.ws.readyState !== WebSocket.OPEN || pcm.length === 0) return;
    // A copy: callers may reuse their frame buffer as soon as this returns.
    const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    this.ws.send(LITTLE_ENDIAN ? Buffer.from(bytes) : Buffer.from(bytes).swap16());
    this.audioMs += (pcm.length * 1000) / this.rate;
    this.lastSentAt = this.clock.monotonic();
  }

  finalize(): void {
    this.control('Finalize');
  }

  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.control('CloseStream', true);
      const cut = this.clock.setTimeout(() => this.ws.terminate(), this.options.closeTimeoutMs ?? 5000);
      await this.closed;
      this.clock.clearTimeout(cut);
    }
    await this.closed;
  }

  private control(type: string, evenWhenClosing = false): void {
    if ((this.closing && !evenWhenClosing) || this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ type }));
  }

  /** Checks every half period, so the longest silence the vendor sees is one period. */
  private scheduleKeepAlive(): void {
    const period = this.options.keepAliveMs ?? 4000;
    this.keepAlive = this.clock.setTimeout(() => {
      if (this.clock.monotonic() - this.lastSentAt >= period / 2) {
        this.control('KeepAlive');
        this.lastSentAt = this.clock.monotonic();
      }
      if (!this.closing) this.scheduleKeepAlive();
    }, period / 2);
  }

  private onMessage(text: string): void {
    let msg: VendorMessage;
    try {
      msg = JSON.parse(text) as VendorMessage;
    } catch {
      this.events.fail(
        new SttError(`${this.provider}: unreadable message ${text.slice(0, 80)}`, this.provider, 'protocol'),
      );
      this.ws.terminate();
      return;
    }
    const ms = (s: number | undefined) => Math.round((s ?? 0) * 1000);
    switch (msg.type) {
      case 'Results': {
        const alt = msg.channel?.alternatives?.[0];
        const transcript = alt?.transcript ?? '';
        // Empty interim results are the vendor thinking aloud; an empty speech_final still ends a turn.
        if (!transcript && !msg.speech_final) return;
        this.events.push({
          type: 'transcript',
          text: transcript,
          isFinal: msg.is_final === true,
          speechFinal: msg.speech_final === true,
          confidence: alt?.confidence ?? 0,
          startMs: ms(msg.start),
          durationMs: ms(msg.duration),
        });
        return;
      }
      case 'SpeechStarted':
        this.events.push({ type: 'speech_started', atMs: ms(msg.timestamp) });
        return;
      case 'UtteranceEnd':
        this.events.push({ type: 'utterance_end', lastWordEndMs: ms(msg.last_word_end) });
        return;
      case 'Error':
        this.events.fail(
          new SttError(
            `${this.provider}: ${msg.description ?? msg.message ?? 'error'}`,
            this.provider,
            'stream',
          ),
        );
        this.ws.terminate();
        return;
      default:
        return; // Metadata and message types added later
    }
  }
}
