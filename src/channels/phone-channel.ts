// The phone channel: what workflow nodes ask of a SIP call, turned into speech and listening over
// the call's media. It never sees SIP or RTP: the call controller hands it CallMedia (audio both
// ways at 16 kHz, keypad digits) and CallControl (transfer, dial, hangup), plus the default TTS
// voice and the configured STT provider. Speech and keys are the voice pipeline's
// (voice/voice-pipeline.ts), which the web channel shares; this adds what only a phone line does.
import { VoicePipeline, type VoicePipelineOptions, type VoiceUsage } from './voice/voice-pipeline.js';
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

/**
 * The voice pipeline's options (its media is the call's: audio both ways at 16 kHz and keypad
 * digits) and the call's control. The voice and language are defaults until an agent node passes
 * its `tts_voice` and `stt_language`.
 */
export interface PhoneChannelOptions extends VoicePipelineOptions {
  media: CallMedia;
  control: CallControl;
}

export type PhoneChannelUsage = VoiceUsage;

/**
 * A Channel on a phone call.
 *
 * - `say` streams TTS PCM into `media.play` as it is synthesised and resolves when the send queue
 *   has drained, or at once when the caller barges in (a key, or speech heard by STT) while
 *   `bargeIn` is on: playback stops and the synthesis is abandoned. A TTS failure rejects with
 *   the provider's error, so the engine fails the node with the vendor's message; a TTS that
 *   cannot run here at all (espeak-ng not installed) is logged and the call goes on unheard.
 * - `listen` uses one STT session per call, opened at the first need and fed every caller frame
 *   from then on (why: see voice/listener.ts). `endedAt` is when the caller's last word was heard,
 *   mapped from the vendor's timestamps, so latency_ms includes the endpointing delay.
 * - Digits are buffered from construction, as on the text channel: keys pressed during a prompt,
 *   or before a collect node starts, count.
 *
 * Without an STT provider the call still runs: prompts play, keys work and barge in, and `listen`
 * waits out its timeout and returns null (silence, so agent nodes take their silence path) with
 * one warning per call in the log. The service always wires one (stt_vendor_1 or the embedded
 * recogniser); tests leave it out.
 *
 * After close() (the call is over) the channel is silent: listen and nextDigit return null and say
 * returns at once, so an execution still unwinding does not touch a dead line.
 */
export class PhoneChannel implements Channel {
  readonly kind = 'phone' as const;
  readonly capabilities: ChannelCapabilities = {
    dtmf: true,
    telephony: true,
    simulated: false,
    speech: true,
  };
  readonly pipeline: VoicePipeline;
  private hungUp = false;

  constructor(private readonly options: PhoneChannelOptions) {
    this.pipeline = new VoicePipeline(options);
  }

  say(text: string, options: SayOptions): Promise<SayResult> {
    return this.pipeline.say(text, options);
  }

  listen(options: ListenOptions): Promise<UserTurn | null> {
    return this.pipeline.listen(options);
  }

  nextDigit(options: DigitOptions): Promise<string | null> {
    return this.pipeline.nextDigit(options);
  }

  clearDigits(): void {
    this.pipeline.clearDigits();
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
    return this.pipeline.usage();
  }

  /** The call is over: stops playback, ends the STT session, and makes the channel silent. */
  close(): Promise<void> {
    return this.pipeline.close();
  }
}
