// In-memory TTS and STT providers for voice pipeline tests: a TTS that yields a set length of
// audio per character (optionally holding its stream open, or failing), an STT whose sessions the
// test scripts event by event, and a wrapper that tells when a real provider's stream has ended.
import { AsyncQueue } from '../../src/providers/shared/async-queue.js';
import type {
  SpeechHints,
  SttEvent,
  SttProvider,
  SttSession,
  SttStartOptions,
} from '../../src/providers/stt/stt.types.js';
import { TtsError, type TtsProvider, type TtsRequest } from '../../src/providers/tts/tts.types.js';

export interface FakeTtsOptions {
  /** Audio per character of text (default 50 ms). */
  msPerChar?: number;
  /** Length of each yielded chunk (default 100 ms). */
  chunkMs?: number;
  /** Yield this many chunks, then wait for release() (ignoring the abort signal, like a stuck vendor). */
  holdAfter?: number;
  /** Throw a TtsError after this many chunks. */
  failAfter?: number;
}

export class FakeTtsProvider implements TtsProvider {
  readonly id = 'fake_tts';
  readonly requests: TtsRequest[] = [];
  /** Streams that ran to their end, and streams that were told to stop early (return()). */
  completed = 0;
  returned = 0;
  private releases: (() => void)[] = [];

  constructor(private readonly options: FakeTtsOptions = {}) {}

  release(): void {
    const r = this.releases;
    this.releases = [];
    for (const f of r) f();
  }

  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    this.requests.push(request);
    const rate = request.sampleRate ?? 16000;
    const total = Math.round((request.text.length * (this.options.msPerChar ?? 50) * rate) / 1000);
    const chunk = Math.round(((this.options.chunkMs ?? 100) * rate) / 1000);
    let finished = false;
    try {
      for (let i = 0, n = 0; i < total; i += chunk, n++) {
        if (n === this.options.failAfter) {
          throw new TtsError('fake_tts: HTTP 500: vendor exploded', this.id, 'http', { status: 500 });
        }
        if (n === this.options.holdAfter) await new Promise<void>((r) => this.releases.push(r));
        const out = new Int16Array(Math.min(chunk, total - i));
        out.fill(1000 + (n % 100));
        yield out;
      }
      finished = true;
      this.completed++;
    } finally {
      if (!finished) this.returned++;
    }
  }
}

/** A real provider with a promise for the end of its latest stream (then the test drains time). */
export function observeTts(provider: TtsProvider): TtsProvider & { finished(): Promise<void> } {
  let done: Promise<void> = Promise.resolve();
  return {
    id: provider.id,
    finished: () => done,
    synthesize(request: TtsRequest): AsyncIterable<Int16Array> {
      let end!: () => void;
      done = new Promise<void>((r) => (end = r));
      const inner = provider.synthesize(request);
      return (async function* () {
        try {
          yield* inner;
        } finally {
          end();
        }
      })();
    },
  };
}

export class FakeSttSession implements SttSession {
  readonly events = new AsyncQueue<SttEvent>();
  audioMs = 0;
  samples = 0;
  finalizes = 0;
  closed = false;
  /** What each listen said it expects, in order. */
  readonly expected: (SpeechHints | null)[] = [];

  constructor(readonly options: SttStartOptions) {}

  expect(hints: SpeechHints | null): void {
    this.expected.push(hints);
  }

  sendAudio(pcm: Int16Array): void {
    if (this.closed) return;
    this.samples += pcm.length;
    this.audioMs += (pcm.length * 1000) / (this.options.sampleRate ?? 16000);
  }

  finalize(): void {
    this.finalizes++;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.events.end();
  }

  emit(event: SttEvent): void {
    this.events.push(event);
  }

  speechStarted(atMs = 0): void {
    this.emit({ type: 'speech_started', atMs });
  }

  interim(text: string, startMs = 0, durationMs = 500): void {
    this.emit({
      type: 'transcript',
      text,
      isFinal: false,
      speechFinal: false,
      confidence: 0.9,
      startMs,
      durationMs,
    });
  }

  final(
    text: string,
    startMs: number,
    durationMs: number,
    speechFinal = false,
    recognitionMs?: number,
  ): void {
    this.emit({
      type: 'transcript',
      text,
      isFinal: true,
      speechFinal,
      confidence: 0.9,
      startMs,
      durationMs,
      ...(recognitionMs !== undefined ? { recognitionMs } : {}),
    });
  }

  utteranceEnd(lastWordEndMs: number): void {
    this.emit({ type: 'utterance_end', lastWordEndMs });
  }

  /** The vendor fails the session (socket dropped, error frame). */
  fail(err: unknown): void {
    this.events.fail(err);
  }
}

export class FakeSttProvider implements SttProvider {
  readonly id = 'fake_stt';
  readonly sessions: FakeSttSession[] = [];
  /** The next start() rejects with this. */
  refuseNext: unknown;
  /** start() waits for open() when true (a slow handshake). */
  slow = false;
  private opens: (() => void)[] = [];

  get session(): FakeSttSession {
    const s = this.sessions.at(-1);
    if (!s) throw new Error('no STT session was started');
    return s;
  }

  open(): void {
    const o = this.opens;
    this.opens = [];
    for (const f of o) f();
  }

  /** start() calls, refused ones included. */
  starts = 0;

  async start(options: SttStartOptions = {}): Promise<SttSession> {
    this.starts++;
    if (this.refuseNext !== undefined) {
      const err = this.refuseNext;
      this.refuseNext = undefined;
      throw err;
    }
    if (this.slow) await new Promise<void>((r) => this.opens.push(r));
    options.signal?.throwIfAborted();
    const session = new FakeSttSession(options);
    this.sessions.push(session);
    return session;
  }
}
