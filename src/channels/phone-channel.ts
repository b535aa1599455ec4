// The phone channel: what workflow nodes ask of a SIP call, turned into speech and listening over
// the call's media. It never sees SIP or RTP: the call controller hands it CallMedia (audio both
// ways at 16 kHz, keypad digits) and CallControl (transfer, dial, hangup), plus the agent's TTS
// voice and the configured STT provider. The work is done in voice/: playback.ts (TTS → media),
// listener.ts (STT turn taking), digit-buffer.ts (keys).
import type { TtsProvider } from '../providers/tts/tts.types.js';
import type { SttProvider } from '../providers/stt/stt.types.js';
import type { Clock, TimerHandle } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { DigitBuffer } from '../voice/digit-buffer.js';
import { SpeechListener } from '../voice/listener.js';
import { playSpeech } from '../voice/playback.js';
import type { CallControl, CallMedia } from './call-media.js';
import {
  abortError,
  type Channel,
  type ChannelCapabilities,
  type DialOptions,
  type DialOutcome,
  type DigitOptions,
  type ListenOptions,
  type SayOptions,
  type SayResult,
  type TransferOptions,
  type TransferOutcome,
  type UserTurn,
} from './channel.js';

export interface PhoneChannelOptions {
  clock: Clock;
  media: CallMedia;
  control: CallControl;
  tts: TtsProvider;
  /** The agent's `tts_voice`. */
  voice: string;
  /** BCP 47; passed to TTS and STT. */
  language?: string;
  /** Null when no STT vendor is configured: listening then hears nothing (see above). */
  stt: SttProvider | null;
  logger?: Pick<Logger, 'warn'>;
  /** Silence (ms) after which STT marks the end of the caller's speech. */
  endpointingMs?: number;
}

export interface PhoneChannelUsage {
  /** Characters of text sent to TTS (`tts_characters`). */
  ttsCharacters: number;
  /** Seconds of caller audio sent to STT (`stt_seconds`, fractional; round when metering). */
  sttSeconds: number;
}

/** The abort reason of a prompt the caller interrupted. */
const BARGE_IN = Symbol('barge-in');

/**
 * A Channel on a phone call.
 *
 * - `say` streams TTS PCM into `media.play` as it is synthesised and resolves when the send queue
 *   has drained, or at once when the caller barges in (a key, or speech heard by STT) while
 *   `bargeIn` is on: playback stops and the synthesis is abandoned. A TTS failure rejects with
 *   the provider's error, so the engine fails the node with the vendor's message.
 * - `listen` uses one STT session per call, opened at the first need and fed every caller frame
 *   from then on (why: see voice/listener.ts). `endedAt` is when the caller's last word was heard,
 *   mapped from the vendor's timestamps, so latency_ms includes the endpointing delay.
 * - Digits are buffered from construction, as on the text channel: keys pressed during a prompt,
 *   or before a collect node starts, count.
 *
 * Without an STT provider (no stt_vendor_1 key configured) the call still runs: prompts play, keys
 * work and barge in, and `listen` waits out its timeout and returns null (silence, so agent nodes
 * take their silence path) with one warning per call in the log. Failing the node instead would
 * end every call of a keypad-and-speech flow on a configuration gap; waiting keeps the timing the
 * flow's author expects, and the log says why nobody is heard.
 *
 * After close() (the call is over) the channel is silent: listen and nextDigit return null and say
 * returns at once, so an execution still unwinding does not touch a dead line.
 */
export class PhoneChannel implements Channel {
  readonly kind = 'phone' as const;
  readonly capabilities: ChannelCapabilities = { dtmf: true, telephony: true, simulated: false };
  private readonly digits: DigitBuffer;
  private readonly listener: SpeechListener | null;
  private readonly unsubscribeDigits: () => void;
  private ttsCharacters = 0;
  private warnedNoStt = false;
  private closed = false;
  private hungUp = false;
  /** Ends waits of a speechless listen when the call closes. */
  private readonly closing = new AbortController();

  constructor(private readonly options: PhoneChannelOptions) {
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

  async say(text: string, options: SayOptions): Promise<SayResult> {
    const { signal } = options;
    if (signal.aborted) throw abortError(signal);
    if (this.closed) return { bargedIn: false };
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
    try {
      await playSpeech(
        { clock: this.options.clock, media: this.options.media, tts: this.options.tts },
        {
          text,
          voice: this.options.voice,
          ...(this.options.language !== undefined ? { language: this.options.language } : {}),
          signal: playing.signal,
        },
      );
      return { bargedIn: false };
    } catch (err) {
      if (signal.aborted) throw abortError(signal);
      if (playing.signal.reason === BARGE_IN) return { bargedIn: true };
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      for (const stop of stops) stop();
    }
  }

  listen(options: ListenOptions): Promise<UserTurn | null> {
    if (options.signal.aborted) return Promise.reject(abortError(options.signal));
    if (this.listener) return this.listener.listen(options);
    if (!this.warnedNoStt) {
      this.warnedNoStt = true;
      this.options.logger?.warn(
        'no speech-to-text provider is configured (STT_VENDOR_1_API_KEY): the caller is not heard, listening times out',
      );
    }
    return this.silence(options);
  }

  nextDigit(options: DigitOptions): Promise<string | null> {
    return this.digits.next(options);
  }

  clearDigits(): void {
    this.digits.clear();
  }

  async transfer(destination: string, options: TransferOptions): Promise<TransferOutcome> {
    if (options.signal.aborted) throw abortError(options.signal);
    return this.options.control.transfer(destination, options);
  }

  async dial(destination: string, options: DialOptions): Promise<DialOutcome> {
    if (options.signal.aborted) throw abortError(options.signal);
    return this.options.control.dial(destination, options);
  }

  async hangup(): Promise<void> {
    if (this.hungUp) return;
    this.hungUp = true;
    this.options.media.stopPlayback();
    await this.options.control.hangup();
  }

  /** What this call has consumed so far, for `tts_characters` and `stt_seconds` at call end. */
  usage(): PhoneChannelUsage {
    return { ttsCharacters: this.ttsCharacters, sttSeconds: this.listener?.sttSeconds ?? 0 };
  }

  /** The call is over: stops playback, ends the STT session, and makes the channel silent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    this.unsubscribeDigits();
    this.digits.close();
    this.options.media.stopPlayback();
    await this.listener?.close();
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
