// The text channel: the test channel of sessions, `switchboard chat`, and simulations. User text
// and keypad digits are fed in; assistant text goes out to listeners. Telephony nodes run against
// simulated outcomes chosen by the session or simulation, so whole flows run without a phone:
//
//   simulated.transfer  'success' (default) | 'failed'          transfer_to_human, transfer_call
//   simulated.dial      'answered' (default) | 'no_answer' | 'busy' | 'failed'   dial
//
// Playback takes `playbackMsPerChar` × length on the injected clock (0 by default: instant), which
// is what lets tests barge into a prompt on a FakeClock.
import type { Clock } from '../shared/clock.js';
import { InputWaiters } from '../shared/input-wait.js';
import { heardChars } from './voice/heard.js';
import {
  abortError,
  type Channel,
  type ChannelCapabilities,
  type ChannelKind,
  type DialOptions,
  type DialOutcome,
  type DialStatus,
  type DigitOptions,
  type ListenOptions,
  type SayOptions,
  type SayResult,
  type TransferMode,
  type TransferOptions,
  type TransferOutcome,
  type UserTurn,
} from './channel.js';

export interface SimulatedOutcomes {
  transfer?: 'success' | 'failed';
  dial?: DialStatus;
}

export type TextChannelOutput =
  | { type: 'assistant_text'; text: string }
  | {
      type: 'transfer';
      destination: string;
      mode: TransferMode;
      announcement?: string;
      outcome: TransferOutcome;
    }
  | { type: 'dial'; destination: string; outcome: DialOutcome }
  | { type: 'hangup' };

export interface TextChannelOptions {
  clock: Clock;
  kind?: ChannelKind;
  simulated?: SimulatedOutcomes;
  /**
   * Whether telephony nodes run against simulated outcomes (default true: test sessions, chat,
   * simulations). False for real users on a text line (web chat): those nodes then leave by
   * `failed` (or fail the execution with channel_unsupported) instead of pretending a transfer happened.
   */
  simulateTelephony?: boolean;
  playbackMsPerChar?: number;
  /**
   * When true, an empty input queue is silence: listen() and nextDigit() return null at once
   * instead of waiting. Simulations set it so timeouts fire immediately when inputs run out.
   */
  silenceWhenIdle?: boolean;
  /**
   * Stamps a user turn's end when a node reads it rather than when it was fed in. Simulations feed
   * every input up front, so this keeps latency_ms about the engine, not about the queue.
   */
  stampOnRead?: boolean;
}

const DTMF_KEYS = /^[0-9*#A-D]$/;

export class TextChannel implements Channel {
  readonly kind: ChannelKind;
  readonly capabilities: ChannelCapabilities;
  simulated: SimulatedOutcomes;
  private readonly clock: Clock;
  private readonly msPerChar: number;
  private silenceWhenIdle: boolean;
  private readonly stampOnRead: boolean;
  private texts: UserTurn[] = [];
  private digits: string[] = [];
  private inputSeq = 0;
  private hungUp = false;
  private readonly waiters: InputWaiters;
  private readonly listeners = new Set<(out: TextChannelOutput) => void>();

  constructor(options: TextChannelOptions) {
    this.clock = options.clock;
    this.waiters = new InputWaiters(options.clock);
    this.kind = options.kind ?? 'test';
    const telephony = options.simulateTelephony ?? true;
    this.capabilities = { dtmf: true, telephony, simulated: telephony };
    this.simulated = { ...options.simulated };
    this.msPerChar = options.playbackMsPerChar ?? 0;
    this.silenceWhenIdle = options.silenceWhenIdle ?? false;
    this.stampOnRead = options.stampOnRead ?? false;
  }

  /** Receives assistant text and telephony actions; returns the unsubscribe function. */
  onOutput(listener: (out: TextChannelOutput) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The user finished a turn with this text. */
  pushText(text: string): void {
    this.texts.push({ text, endedAt: this.clock.monotonic() });
    this.inputSeq++;
    this.wake();
  }

  /** The user pressed keys; anything but 0-9 * # A-D is ignored. */
  pushDtmf(keys: string): void {
    for (const key of keys) if (DTMF_KEYS.test(key)) this.digits.push(key);
    this.inputSeq++;
    this.wake();
  }

  /** No more input will come: waiting listens and digit reads resolve as silence. */
  closeInput(): void {
    this.silenceWhenIdle = true;
    this.wake();
  }

  get isHungUp(): boolean {
    return this.hungUp;
  }

  async say(text: string, options: SayOptions): Promise<SayResult> {
    if (options.signal.aborted) throw abortError(options.signal);
    // Shown at once: the output has started (no audio on a text line).
    options.onStarted?.({});
    this.output({ type: 'assistant_text', text });
    const playMs = this.msPerChar * text.length;
    if (playMs <= 0) return { bargedIn: false };
    const startSeq = this.inputSeq;
    const startedAt = this.clock.monotonic();
    const barged = await this.waiters.waitFor(
      () => (options.bargeIn && this.inputSeq > startSeq ? true : undefined),
      { signal: options.signal, timeoutMs: playMs },
    );
    if (barged !== true) return { bargedIn: false };
    // The simulated playback ran at an even pace: what was heard is the share of it played.
    const sentMs = this.clock.monotonic() - startedAt;
    return {
      bargedIn: true,
      heardChars: heardChars(text, { queuedMs: playMs, synthesized: true, sentMs }) ?? 0,
    };
  }

  listen(options: ListenOptions): Promise<UserTurn | null> {
    const next = this.stampOnRead
      ? () => {
          const turn = this.texts.shift();
          return turn && { text: turn.text, endedAt: this.clock.monotonic() };
        }
      : () => this.texts.shift();
    return this.waiters.waitFor(next, { ...options, silent: this.silent });
  }

  nextDigit(options: DigitOptions): Promise<string | null> {
    return this.waiters.waitFor(() => this.digits.shift(), { ...options, silent: this.silent });
  }

  clearDigits(): void {
    this.digits = [];
  }

  async transfer(destination: string, options: TransferOptions): Promise<TransferOutcome> {
    if (options.signal.aborted) throw abortError(options.signal);
    const status = this.simulated.transfer ?? 'success';
    const outcome: TransferOutcome =
      status === 'success' ? { status } : { status, reason: 'simulated_failure' };
    this.output({
      type: 'transfer',
      destination,
      mode: options.mode,
      ...(options.announcement !== undefined ? { announcement: options.announcement } : {}),
      outcome,
    });
    return outcome;
  }

  async dial(destination: string, options: DialOptions): Promise<DialOutcome> {
    if (options.signal.aborted) throw abortError(options.signal);
    const outcome: DialOutcome = { status: this.simulated.dial ?? 'answered' };
    this.output({ type: 'dial', destination, outcome });
    return outcome;
  }

  async hangup(): Promise<void> {
    if (this.hungUp) return;
    this.hungUp = true;
    this.output({ type: 'hangup' });
  }

  private output(out: TextChannelOutput): void {
    for (const l of this.listeners) l(out);
  }

  private wake(): void {
    this.waiters.wake();
  }

  /** Listens and digit reads end as silence (null) once input is closed and drained. */
  private readonly silent = (): boolean => this.silenceWhenIdle;
}
