// The voice pipeline every audio channel runs on (the phone channel now, the web channel next):
// what a node says becomes speech on the line, what the caller says becomes turns, and key
// presses become digits. It knows nothing of SIP, RTP or WebRTC: it works on a MediaPort (audio
// both ways as 16 kHz mono 16-bit PCM, plus keypad digits) and the providers it is given.
//
//   say     TTS → playback.ts → media.play, barge-in by a key or by speech heard (listener.ts)
//   listen  media audio → listener.ts (one STT session per call) → a UserTurn with its timings
//   digits  media digits → digit-buffer.ts
//
// Voice settings (an agent's `tts_voice` and `stt_language`) are the pipeline's: a node passes
// them with a say or a listen, and they stay until another node passes others, so a speak node
// after an agent keeps the agent's voice. Without any, the defaults given at construction apply.
import {
  abortError,
  type ListenOptions,
  type SayOptions,
  type SayResult,
  type UserTurn,
} from '../channel.js';
import type { CallMedia } from '../call-media.js';
import type { SttProvider } from '../../providers/stt/stt.types.js';
import { TtsError, type TtsProvider } from '../../providers/tts/tts.types.js';
import type { Clock, TimerHandle } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { DigitBuffer } from './digit-buffer.js';
import { SpeechListener } from './listener.js';
import { heardChars } from './heard.js';
import { playSpeech, type PlaybackProgress } from './playback.js';

/** The pipeline's side of a line: 16 kHz PCM both ways and key presses (see call-media.ts). */
export type MediaPort = CallMedia;

export interface VoicePipelineOptions {
  clock: Clock;
  media: MediaPort;
  tts: TtsProvider;
  /** Default TTS voice, until a node passes one. */
  voice: string;
  /** Default BCP 47 language for TTS and STT, until a node passes one. */
  language?: string;
  /** Null when listening is not wired (tests): listening then hears nothing. */
  stt: SttProvider | null;
  logger?: Pick<Logger, 'warn'>;
  /** Silence (ms) after which STT marks the end of the caller's speech. */
  endpointingMs?: number;
}

export interface VoiceUsage {
  /** Characters of text sent to TTS (`tts_characters`). */
  ttsCharacters: number;
  /** Seconds of caller audio sent to STT (`stt_seconds`, fractional; round when metering). */
  sttSeconds: number;
}

/** The abort reason of a prompt the caller interrupted. */
const BARGE_IN = Symbol('barge-in');

export class VoicePipeline {
  private readonly digits: DigitBuffer;
  private readonly listener: SpeechListener | null;
  private readonly unsubscribeDigits: () => void;
  private voice: string;
  private language: string | undefined;
  private ttsCharacters = 0;
  private warnedNoStt = false;
  private closed = false;
  /** Ends waits of a speechless listen when the line closes. */
  private readonly closing = new AbortController();

  constructor(private readonly options: VoicePipelineOptions) {
    this.voice = options.voice;
    this.language = options.language;
    this.digits = new DigitBuffer(options.clock);
    this.unsubscribeDigits = options.media.onDigit((d) => this.digits.push(d));
    this.listener = options.stt
      ? new SpeechListener({
          clock: options.clock,
          media: options.media,
          stt: options.stt,
          ...(options.language !== undefined ? { language: options.language } : {}),
          ...(options.endpointingMs !== undefined ? { endpointingMs: options.endpointingMs } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        })
      : null;
  }

  /** The voice and language speech is made with now. */
  get voiceSettings(): { voice: string; language: string | undefined } {
    return { voice: this.voice, language: this.language };
  }

  /** A key, or speech heard (when the listener runs), interrupts `say` while `bargeIn` is on. */
  async say(text: string, options: SayOptions): Promise<SayResult> {
    const { signal } = options;
    if (signal.aborted) throw abortError(signal);
    this.applyVoice(options.voice);
    if (this.closed) {
      options.onStarted?.({});
      return { bargedIn: false };
    }
    const playing = new AbortController();
    const onAbort = (): void => playing.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const stops: (() => void)[] = [];
    if (options.bargeIn) {
      const bargeIn = (): void => {
        if (!playing.signal.aborted) playing.abort(BARGE_IN);
      };
      stops.push(this.digits.onDigit(bargeIn));
      if (this.listener) {
        stops.push(this.listener.onSpeech(bargeIn));
        this.listener.prepare();
      }
    }
    if (text.trim()) this.ttsCharacters += text.length;
    let started = false;
    const progress: PlaybackProgress = { queuedMs: 0, synthesized: false, sentMs: null };
    try {
      await playSpeech(
        { clock: this.options.clock, media: this.options.media, tts: this.options.tts },
        {
          text,
          voice: this.voice,
          ...(this.language !== undefined ? { language: this.language } : {}),
          signal: playing.signal,
          progress,
          onFirstPacket: (timing) => {
            started = true;
            options.onStarted?.(timing);
          },
        },
      );
      return { bargedIn: false };
    } catch (err) {
      if (signal.aborted) throw abortError(signal);
      if (playing.signal.reason === BARGE_IN) {
        const heard = heardChars(text, progress);
        return heard === undefined ? { bargedIn: true } : { bargedIn: true, heardChars: heard };
      }
      // No speech output on this machine (espeak-ng missing): the words are in the transcript,
      // the log says why nobody heard them, and the workflow goes on as if they had been said.
      if (err instanceof TtsError && err.kind === 'config') {
        this.options.logger?.warn(
          { provider: err.provider, text: text.slice(0, 200) },
          `speech output unavailable, not played: ${err.message}`,
        );
        return { bargedIn: false };
      }
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      for (const stop of stops) stop();
      if (!started) options.onStarted?.({});
    }
  }

  listen(options: ListenOptions): Promise<UserTurn | null> {
    if (options.signal.aborted) return Promise.reject(abortError(options.signal));
    if (options.language !== undefined) this.language = options.language;
    if (this.listener) {
      return this.listener.listen({
        ...options,
        ...(this.language !== undefined ? { language: this.language } : {}),
      });
    }
    if (!this.warnedNoStt) {
      this.warnedNoStt = true;
      this.options.logger?.warn(
        'no speech-to-text provider is wired: the caller is not heard, listening times out',
      );
    }
    return this.silence(options);
  }

  nextDigit(options: { signal: AbortSignal; timeoutMs?: number }): Promise<string | null> {
    return this.digits.next(options);
  }

  clearDigits(): void {
    this.digits.clear();
  }

  usage(): VoiceUsage {
    return { ttsCharacters: this.ttsCharacters, sttSeconds: this.listener?.sttSeconds ?? 0 };
  }

  /** The line is over: stops playback, ends the STT session, and makes the pipeline silent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    this.unsubscribeDigits();
    this.digits.close();
    this.options.media.stopPlayback();
    await this.listener?.close();
  }

  private applyVoice(settings: SayOptions['voice']): void {
    if (!settings) return;
    if (settings.voice) this.voice = settings.voice;
    if (settings.language) {
      this.language = settings.language;
      this.listener?.setLanguage(settings.language);
    }
  }

  /** A listen with nothing to hear: null after the timeout (or at close); rejects on abort. */
  private silence({ signal, timeoutMs }: ListenOptions): Promise<null> {
    if (this.closed || (timeoutMs !== undefined && timeoutMs <= 0)) return Promise.resolve(null);
    return new Promise<null>((resolve, reject) => {
      const { clock } = this.options;
      let timer: TimerHandle | undefined;
      const done = (): void => {
        if (timer) clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.closing.signal.removeEventListener('abort', onClose);
      };
      const onAbort = (): void => {
        done();
        reject(abortError(signal));
      };
      const onClose = (): void => {
        done();
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.closing.signal.addEventListener('abort', onClose, { once: true });
      if (timeoutMs !== undefined) timer = clock.setTimeout(onClose, timeoutMs);
    });
  }
}
