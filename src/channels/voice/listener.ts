// STT turn taking for a call: one streaming session per call, fed with every frame of the
// caller's audio, whose events become user turns (TurnAssembler) and speech signals (barge-in).
//
// Why one session for the call rather than one per listen: opening a vendor session costs a
// WebSocket handshake (100-300 ms) that would land on the start of every answer, and the caller
// does not wait for a node to be listening: what they say while the agent thinks, or the words
// that barged into a prompt, belong to the next turn. So the session opens at the first need (a
// listen, or a prompt that speech may interrupt) — a keypad-only menu never opens one — and audio
// flows until close(). Frames that arrive while it connects are held and sent once it is open.
// Turns that end while no listen waits are queued for the next one, as on the text channel.
//
// A session that fails (vendor error, dropped socket) is dropped; its error is what the next (or
// the waiting) listen rejects with, so the node fails with the vendor's message, and the listen
// after that opens a new session. Prompts never fail because of STT: they only lose speech
// barge-in.
import { abortError, type ListenOptions, type UserTurn } from '../channel.js';
import { CALL_PCM_RATE, type CallMedia } from '../call-media.js';
import type { SpeechHints, SttEvent, SttProvider, SttSession } from '../../providers/stt/stt.types.js';
import type { Clock, TimerHandle } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { AudioTimeline } from './audio-timeline.js';
import { TurnAssembler } from './turn-assembler.js';

export interface SpeechListenerOptions {
  clock: Clock;
  media: CallMedia;
  stt: SttProvider;
  language?: string;
  /** Silence (ms) after which the vendor marks the end of speech; the adapter's default if unset. */
  endpointingMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

/** Caller audio held while the session connects (frames beyond are dropped, oldest first). */
const MAX_HELD_MS = 10_000;
/** Finished turns kept for a later listen. */
const MAX_QUEUED_TURNS = 8;

export class SpeechListener {
  private session: SttSession | null = null;
  private opening: Promise<void> | null = null;
  private readonly openAbort = new AbortController();
  private held: { pcm: Int16Array; at: number }[] = [];
  private heldMs = 0;
  private timeline = new AudioTimeline();
  private assembler = new TurnAssembler();
  private readonly turns: UserTurn[] = [];
  private failure: { error: unknown } | null = null;
  private closed = false;
  /** audioMs of sessions already dropped. */
  private pastAudioMs = 0;
  private readonly waiters = new Set<(speech: boolean) => void>();
  /** The language the open session was started with, and the one the next listen wants. */
  private sessionLanguage: string | undefined;
  private language: string | undefined;
  private hints: SpeechHints | null = null;
  /** The last final transcript's recognition time (per-utterance recognisers). */
  private recognitionMs: number | undefined;
  private readonly speechListeners = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: SpeechListenerOptions) {
    this.language = options.language;
    this.unsubscribe = options.media.onAudio((pcm) => this.onAudio(pcm));
  }

  /** Audio sent to the vendor so far, in seconds (what it bills). */
  get sttSeconds(): number {
    return (this.pastAudioMs + (this.session?.audioMs ?? 0)) / 1000;
  }

  /** Called whenever the caller is heard speaking (barge-in); returns the unsubscribe function. */
  onSpeech(listener: () => void): () => void {
    this.speechListeners.add(listener);
    return () => this.speechListeners.delete(listener);
  }

  /**
   * For a prompt that speech may interrupt: opens the session unless the last attempt failed and
   * no listen has reported that yet (a refused key is not retried, and logged, at every prompt).
   */
  prepare(): void {
    if (!this.failure) this.start();
  }

  /** Opens the session if none is open or opening; failures are kept for the next listen. */
  start(): void {
    if (this.closed || this.session || this.opening) return;
    const { stt, endpointingMs } = this.options;
    const language = this.language;
    this.sessionLanguage = language;
    this.timeline = new AudioTimeline();
    this.assembler = new TurnAssembler();
    this.opening = stt
      .start({
        sampleRate: CALL_PCM_RATE,
        signal: this.openAbort.signal,
        ...(language !== undefined ? { language } : {}),
        ...(endpointingMs !== undefined ? { endpointingMs } : {}),
        ...(this.hints ? { hints: this.hints } : {}),
      })
      .then(
        (session) => {
          this.opening = null;
          if (this.closed) {
            void session.close().catch(() => {});
            return;
          }
          this.session = session;
          for (const f of this.held) this.send(f.pcm, f.at);
          this.held = [];
          this.heldMs = 0;
          void this.read(session);
        },
        (err: unknown) => {
          this.opening = null;
          this.held = [];
          this.heldMs = 0;
          if (this.closed) return;
          this.options.logger?.warn({ err, provider: stt.id }, 'speech recognition could not start');
          this.fail(err);
        },
      );
  }

  /**
   * The caller's next turn: a queued one at once, else the next to end. `timeoutMs` is silence:
   * it restarts whenever the caller is heard, and when it runs out with words heard but no end of
   * turn from the vendor, those words are the turn (cut); with none, the result is null.
   */
  listen(options: ListenOptions): Promise<UserTurn | null> {
    const { signal, timeoutMs } = options;
    if (signal.aborted) return Promise.reject(abortError(signal));
    this.hints = options.hints ?? null;
    this.session?.expect?.(this.hints);
    if (options.language !== undefined) this.setLanguage(options.language);
    const queued = this.turns.shift();
    if (queued) return Promise.resolve(queued);
    if (this.failure) {
      const { error } = this.failure;
      this.failure = null;
      return Promise.reject(error);
    }
    if (this.closed) return Promise.resolve(null);
    this.start();
    // A zero timeout is a poll, as on the text channel: what has been heard so far, or null.
    if (timeoutMs !== undefined && timeoutMs <= 0) return Promise.resolve(this.cut());
    return new Promise<UserTurn | null>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const { clock } = this.options;
      const arm = (): void => {
        if (timer) clock.clearTimeout(timer);
        if (timeoutMs !== undefined) timer = clock.setTimeout(onTimeout, timeoutMs);
      };
      const cleanup = (): void => {
        this.waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        if (timer) clock.clearTimeout(timer);
      };
      const check = (speech: boolean): void => {
        const turn = this.turns.shift();
        if (turn) {
          cleanup();
          resolve(turn);
        } else if (this.failure) {
          const { error } = this.failure;
          this.failure = null;
          cleanup();
          reject(error);
        } else if (this.closed) {
          cleanup();
          resolve(null);
        } else if (speech) {
          arm();
        }
      };
      const onTimeout = (): void => {
        timer = undefined;
        cleanup();
        resolve(this.cut());
      };
      const onAbort = (): void => {
        cleanup();
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(check);
      arm();
    });
  }

  /**
   * The caller's language from now on. A session hears one language: one open in another is
   * dropped, and the next need opens one in this (the words it was still finishing are lost).
   */
  setLanguage(language: string): void {
    if (language === this.language) return;
    this.language = language;
    if (this.session && this.sessionLanguage !== language) this.drop(this.session, null);
  }

  /** Ends the session (waiting for the vendor's last results) and wakes a waiting listen. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.wake(false);
    const session = this.session;
    if (session) {
      try {
        // A graceful end (the vendor's CloseStream), so the last words are billed and logged.
        await session.close();
      } catch {
        // The call is over; a vendor that fails its goodbye changes nothing.
      }
    }
    // Cuts a session still connecting (an open one has let go of this signal by now).
    this.openAbort.abort(new Error('The call ended.'));
  }

  private onAudio(pcm: Int16Array): void {
    if (this.closed || pcm.length === 0) return;
    const at = this.options.clock.monotonic();
    if (this.session) {
      this.send(pcm, at);
    } else if (this.opening) {
      // The media may reuse its frame buffer once this returns.
      this.held.push({ pcm: pcm.slice(), at });
      this.heldMs += (pcm.length * 1000) / CALL_PCM_RATE;
      while (this.heldMs > MAX_HELD_MS && this.held.length > 1) {
        this.heldMs -= (this.held.shift()!.pcm.length * 1000) / CALL_PCM_RATE;
      }
    }
  }

  private send(pcm: Int16Array, at: number): void {
    this.session!.sendAudio(pcm);
    this.timeline.add((pcm.length * 1000) / CALL_PCM_RATE, at);
  }

  private async read(session: SttSession): Promise<void> {
    try {
      for await (const event of session.events) {
        if (this.session !== session) return;
        this.onEvent(event);
      }
      if (this.session === session && !this.closed) this.drop(session, null);
    } catch (err) {
      if (this.session !== session || this.closed) return;
      this.options.logger?.warn({ err, provider: this.options.stt.id }, 'speech recognition failed');
      this.drop(session, err);
    }
  }

  /** The session ended on its own (error = null) or failed: the next listen opens another. */
  private drop(session: SttSession, error: unknown): void {
    this.pastAudioMs += session.audioMs;
    this.session = null;
    void session.close().catch(() => {});
    if (error !== null) this.fail(error);
    // A listen still waiting keeps listening on a new session.
    else if (this.waiters.size > 0) this.start();
  }

  private fail(error: unknown): void {
    this.failure = { error };
    this.wake(false);
  }

  private onEvent(event: SttEvent): void {
    if (event.type === 'transcript' && event.isFinal) this.recognitionMs = event.recognitionMs;
    const step = this.assembler.push(event);
    if (step.turn) this.queue(step.turn.text, step.turn.endMs);
    if (step.speech) for (const l of [...this.speechListeners]) l();
    this.wake(step.speech);
  }

  /** The silence timeout of a listen ran out: words heard so far are the turn, if any. */
  private cut(): UserTurn | null {
    if (!this.session || !this.assembler.hasWords) return null;
    const turn = this.assembler.cut(this.timeline.offsetMs);
    // Let the vendor flush what it holds; what it sends for the cut span is dropped.
    this.session.finalize();
    return turn ? this.toTurn(turn.text, turn.endMs) : null;
  }

  private queue(text: string, endMs: number): void {
    this.turns.push(this.toTurn(text, endMs));
    if (this.turns.length > MAX_QUEUED_TURNS) this.turns.shift();
  }

  /**
   * A finished turn with its timings: when the caller stopped (from the recogniser's offsets),
   * when the end was detected (a per-utterance recogniser's decoding started then; a streaming
   * vendor's end-of-turn event carries its transcript, so both are now), and now.
   */
  private toTurn(text: string, endMs: number): UserTurn {
    const now = this.options.clock.monotonic();
    const endedAt = endMs > 0 ? this.timeline.at(endMs, now) : now;
    const detectedAt = Math.max(endedAt, now - (this.recognitionMs ?? 0));
    this.recognitionMs = undefined;
    return { text, endedAt, detectedAt, transcribedAt: now };
  }

  private wake(speech: boolean): void {
    for (const w of [...this.waiters]) w(speech);
  }
}
