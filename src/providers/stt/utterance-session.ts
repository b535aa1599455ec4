// A live STT session for recognisers that take a whole utterance at a time (the embedded decoder,
// an OpenAI-compatible transcription endpoint): the voice-activity detector of audio/vad.ts cuts
// the caller's audio into utterances, each is recognised once it ends, and the result comes out
// as the same events a streaming vendor sends (speech_started, then one final transcript that ends
// the turn). Recognitions run one at a time, in order, so transcripts never overtake each other.
//
//   audio ─► EnergyVad ─ speech_start ─► `speech_started` event (barge-in)
//                      └ speech_end ───► recognise(pre-roll + speech + tail) ─► final transcript
//
// finalize() ends an utterance in progress at once (the listener's silence timeout cut the turn);
// close() recognises what is pending and ends the events, waiting at most `closeLimitMs` for it: a
// shared recogniser's backlog (the embedded one decodes one utterance at a time for the whole node)
// can be minutes long under load, and a call's end or the service's shutdown must not wait on it.
// Past the limit the pending recognitions are aborted (the embedded decoder drops them unstarted).
import { systemClock, type Clock, type TimerHandle } from '../../shared/clock.js';
import { DEFAULT_VAD_HANGOVER_MS, EnergyVad } from '../../audio/vad.js';
import { AsyncQueue } from '../shared/async-queue.js';
import {
  SttError,
  type SpeechHints,
  type SttEvent,
  type SttProvider,
  type SttSession,
  type SttStartOptions,
} from './stt.types.js';

export interface UtteranceRequest {
  /** Mono 16-bit PCM of one utterance. */
  pcm: Int16Array;
  sampleRate: number;
  language?: string;
  hints?: SpeechHints;
  signal: AbortSignal;
}

export interface UtteranceResult {
  text: string;
  /** 0..1; 1 when the recogniser gives none. */
  confidence?: number;
}

/** Recognises one finished utterance; throws SttError on failure. */
export interface UtteranceRecognizer {
  readonly id: string;
  readonly engine?: string;
  /** Starts loading what recognising needs (a model), so the first turn does not wait for it. */
  warm?(language?: string): void;
  recognize(request: UtteranceRequest): Promise<UtteranceResult>;
}

export interface UtteranceSttOptions {
  clock?: Clock;
  /** Audio kept before the detected start (soft onsets), ms. */
  preRollMs?: number;
  /** Audio kept after the detected end, ms. */
  tailMs?: number;
  /** An utterance longer than this is cut and recognised (ms). */
  maxUtteranceMs?: number;
  /** How long close() waits for pending recognitions before it aborts them (ms, default 5000). */
  closeLimitMs?: number;
}

export const DEFAULT_CLOSE_LIMIT_MS = 5_000;

/** An SttProvider over a per-utterance recogniser. */
export class UtteranceSttProvider implements SttProvider {
  readonly id: string;
  readonly engine: string | undefined;

  constructor(
    private readonly recognizer: UtteranceRecognizer,
    private readonly options: UtteranceSttOptions = {},
  ) {
    this.id = recognizer.id;
    this.engine = recognizer.engine;
  }

  start(options: SttStartOptions = {}): Promise<SttSession> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    this.recognizer.warm?.(options.language);
    return Promise.resolve(new UtteranceSttSession(this.recognizer, this.options, options));
  }
}

interface Chunk {
  startMs: number;
  pcm: Int16Array;
}

class UtteranceSttSession implements SttSession {
  private readonly queue = new AsyncQueue<SttEvent>();
  private readonly vad: EnergyVad;
  private readonly rate: number;
  private readonly abort = new AbortController();
  private readonly clock: Clock;
  private readonly preRollMs: number;
  private readonly tailMs: number;
  private readonly maxUtteranceMs: number;
  private readonly closeLimitMs: number;
  /** Audio since shortly before the utterance in progress (or the last pre-roll while quiet). */
  private chunks: Chunk[] = [];
  private sentMs = 0;
  /** Start (ms) of the utterance in progress, or null while quiet. */
  private utteranceStart: number | null = null;
  private hints: SpeechHints | undefined;
  private recognising: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly recognizer: UtteranceRecognizer,
    options: UtteranceSttOptions,
    private readonly start: SttStartOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.rate = start.sampleRate ?? 16000;
    this.preRollMs = options.preRollMs ?? 100;
    this.tailMs = options.tailMs ?? 100;
    this.maxUtteranceMs = options.maxUtteranceMs ?? 30_000;
    this.closeLimitMs = options.closeLimitMs ?? DEFAULT_CLOSE_LIMIT_MS;
    this.hints = start.hints;
    this.vad = new EnergyVad({
      sampleRate: this.rate,
      hangoverMs: start.endpointingMs ?? DEFAULT_VAD_HANGOVER_MS,
    });
    start.signal?.addEventListener(
      'abort',
      () => {
        this.abort.abort(start.signal!.reason);
        this.queue.fail(start.signal!.reason);
      },
      { once: true },
    );
  }

  get events(): AsyncIterable<SttEvent> {
    return this.queue;
  }

  get audioMs(): number {
    return this.sentMs;
  }

  expect(hints: SpeechHints | null): void {
    this.hints = hints ?? undefined;
  }

  sendAudio(pcm: Int16Array): void {
    if (this.closed || pcm.length === 0) return;
    // The caller may reuse its buffer once this returns.
    this.chunks.push({ startMs: this.sentMs, pcm: pcm.slice() });
    this.sentMs += (pcm.length * 1000) / this.rate;
    for (const event of this.vad.push(pcm)) {
      if (event.type === 'speech_start') {
        if (this.utteranceStart === null) {
          this.utteranceStart = event.atMs;
          this.queue.push({ type: 'speech_started', atMs: event.atMs });
        }
      } else if (this.utteranceStart !== null) {
        this.endUtterance(event.atMs, event.atMs + this.tailMs);
      }
    }
    if (this.utteranceStart === null) this.trim(this.sentMs - this.preRollMs - this.tailMs);
    else if (this.sentMs - this.utteranceStart > this.maxUtteranceMs)
      this.endUtterance(this.sentMs, this.sentMs);
  }

  finalize(): void {
    if (this.utteranceStart !== null) this.endUtterance(this.sentMs, this.sentMs);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.finalize();
    this.closed = true;
    let timer: TimerHandle | null = null;
    const limit = new Promise<void>((resolve) => {
      timer = this.clock.setTimeout(() => {
        this.abort.abort(
          new SttError(
            `${this.recognizer.id}: recognition outlasted the close`,
            this.recognizer.id,
            'timeout',
          ),
        );
        resolve();
      }, this.closeLimitMs);
    });
    await Promise.race([this.recognising, limit]);
    if (timer) this.clock.clearTimeout(timer);
    this.queue.end();
  }

  /**
   * Recognises [start - pre-roll, keepUntilMs) and keeps listening for the next utterance; the
   * transcript's span ends where the speech did (`speechEndMs`), which is what latency counts from.
   */
  private endUtterance(speechEndMs: number, keepUntilMs: number): void {
    const startMs = Math.max(0, this.utteranceStart! - this.preRollMs);
    const pcm = this.slice(startMs, Math.min(keepUntilMs, this.sentMs));
    // A caller who goes on talking after a cut starts the next utterance here.
    this.utteranceStart = this.vad.inSpeech ? this.sentMs : null;
    this.trim(this.utteranceStart ?? this.sentMs - this.preRollMs - this.tailMs);
    const endedAt = this.clock.monotonic();
    const hints = this.hints;
    this.recognising = this.recognising.then(async () => {
      if (this.queue.closed) return;
      try {
        const result = await this.recognizer.recognize({
          pcm,
          sampleRate: this.rate,
          signal: this.abort.signal,
          ...(this.start.language !== undefined ? { language: this.start.language } : {}),
          ...(hints ? { hints } : {}),
        });
        this.queue.push({
          type: 'transcript',
          text: result.text.trim(),
          isFinal: true,
          speechFinal: true,
          confidence: result.confidence ?? 1,
          startMs,
          durationMs: Math.max(0, speechEndMs - startMs),
          recognitionMs: Math.max(0, this.clock.monotonic() - endedAt),
        });
      } catch (err) {
        if (this.abort.signal.aborted) return;
        this.queue.fail(
          err instanceof SttError
            ? err
            : new SttError(
                `${this.recognizer.id}: ${(err as Error).message}`,
                this.recognizer.id,
                'protocol',
                {
                  cause: err,
                },
              ),
        );
      }
    });
  }

  /** The audio between two offsets (ms) of the session, joined. */
  private slice(fromMs: number, toMs: number): Int16Array {
    const from = Math.round((fromMs * this.rate) / 1000);
    const to = Math.round((toMs * this.rate) / 1000);
    const out = new Int16Array(Math.max(0, to - from));
    for (const c of this.chunks) {
      const start = Math.round((c.startMs * this.rate) / 1000);
      const a = Math.max(from, start);
      const b = Math.min(to, start + c.pcm.length);
      if (b > a) out.set(c.pcm.subarray(a - start, b - start), a - from);
    }
    return out;
  }

  /** Drops audio that ends before `ms`. */
  private trim(ms: number): void {
    let drop = 0;
    while (drop < this.chunks.length) {
      const c = this.chunks[drop]!;
      if (c.startMs + (c.pcm.length * 1000) / this.rate > ms) break;
      drop++;
    }
    if (drop > 0) this.chunks.splice(0, drop);
  }
}
