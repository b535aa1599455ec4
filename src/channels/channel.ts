// What a workflow node may ask of the line it runs on. The text channel (test, chat, simulation)
// and the phone channel (SIP calls) implement it, and any new kind of line implements the same
// interface, so nodes never change when one appears.

import type { SpeechHints } from '../providers/stt/stt.types.js';

/** The session channel names of the API (`channel` of a session, docs/api.md). */
export type ChannelKind = 'test' | 'web' | 'phone';

/**
 * What a channel can do. Nodes declare what they need (see `ChannelNeed`) and the interpreter
 * checks it once before the node runs, the way jambonz verbs declare preconditions.
 */
export interface ChannelCapabilities {
  /** Keypad digits reach the session (RFC 4733 on phone, data messages on web, fed in on text). */
  dtmf: boolean;
  /** Transfers, dialing and hangup exist (real on phone; simulated outcomes on the text channel). */
  telephony: boolean;
  /** True when telephony outcomes are simulated rather than real (text channel). */
  simulated: boolean;
  /**
   * The user speaks: turns come from audio through speech recognition (phone and web voice lines),
   * so a keypad node also listens for spoken digits and answers. Unset on text lines.
   */
  speech?: boolean;
}

export type ChannelNeed = keyof Omit<ChannelCapabilities, 'simulated' | 'speech'>;

/** An agent's voice settings (spec 2.2 `tts_voice`, `stt_language`); unset parts stay as they were. */
export interface VoiceSettings {
  voice?: string | null;
  language?: string;
}

/** When a say's output first reached the user (Clock.monotonic()); absent parts did not happen. */
export interface OutputTiming {
  /** The first synthesised audio arrived from TTS. */
  firstAudioAt?: number;
  /** The first packet of it went out on the line. */
  firstPacketAt?: number;
}

export interface SayOptions {
  /** Whether user input (speech, text or a digit) may interrupt the playback. */
  bargeIn: boolean;
  signal: AbortSignal;
  /** Voice lines speak with these from now on (text lines ignore them). */
  voice?: VoiceSettings;
  /**
   * Called once, as soon as the output has started (the first audio packet is out, or at once on
   * a text line), or when the say ends without output (barge-in first, nothing to say, failure).
   */
  onStarted?: (timing: OutputTiming) => void;
}

export interface SayResult {
  /** True when the user interrupted the playback before it finished. */
  bargedIn: boolean;
  /**
   * When interrupted: how many characters of the text (a prefix ending on a whole word) the user
   * heard, estimated from the share of the speech's audio sent; absent when that is not known.
   */
  heardChars?: number;
}

export interface ListenOptions {
  signal: AbortSignal;
  /** Silence after which listening gives up; omitted = wait until aborted. */
  timeoutMs?: number;
  /** The user's language (BCP 47) from now on, for speech recognition. */
  language?: string;
  /** What the node can act on: recognisers with grammars listen for these. */
  hints?: SpeechHints;
}

/** One finished user turn (an utterance on voice, a message on text). */
export interface UserTurn {
  text: string;
  /** Clock.monotonic() when the user's turn ended, the start of the latency measure. */
  endedAt: number;
  /** Voice: when the end of the turn was detected (endpointing done), Clock.monotonic(). */
  detectedAt?: number;
  /** Voice: when the final transcript was in hand, Clock.monotonic(). */
  transcribedAt?: number;
}

export interface DigitOptions {
  signal: AbortSignal;
  timeoutMs?: number;
}

export type TransferMode = 'blind' | 'warm';

export interface TransferOptions {
  mode: TransferMode;
  /** Warm transfers only: played to the human before the caller is bridged. */
  announcement?: string;
  /** Warm transfers only: how long the human's phone may ring. */
  timeoutMs?: number;
  /**
   * Warm transfers only: answering-machine detection on the human's leg before the announcement;
   * a machine fails the transfer with reason `machine` (the leg is hung up).
   */
  machineDetection?: boolean;
  signal: AbortSignal;
}

export interface TransferOutcome {
  status: 'success' | 'failed';
  /** Why a transfer failed (no_answer, busy, rejected, …), for logs and variables. */
  reason?: string;
}

export interface DialOptions {
  /** Caller id: a registered number (E.164). */
  from?: string;
  timeoutMs?: number;
  /**
   * Answering-machine detection on the leg before it is bridged: a machine is hung up and the
   * outcome is `failed`; the verdict is the outcome's `answeredBy` either way.
   */
  machineDetection?: boolean;
  signal: AbortSignal;
  /**
   * A key the dialled party pressed while bridged (RFC 4733 or SIP INFO on the leg), with the
   * leg's call id. Channels whose user can be shown it (a browser) report it here.
   */
  onPartyDigit?: (digit: string, callId: string) => void;
}

export type DialStatus = 'answered' | 'no_answer' | 'busy' | 'failed';

export interface DialOutcome {
  status: DialStatus;
  /** Id of the new call leg when one was created. */
  callId?: string;
  /**
   * Why the leg was not answered (no_answer, busy, quota_exhausted, no_audio, …): the dial node's
   * `dial_failure_reason` variable.
   */
  reason?: string;
  /** With machineDetection, once the leg answered: who did (human, machine or unknown). */
  answeredBy?: 'human' | 'machine' | 'unknown';
}

export interface Channel {
  readonly kind: ChannelKind;
  readonly capabilities: ChannelCapabilities;

  /** Plays or shows assistant output; resolves when played or barged in, rejects when aborted. */
  say(text: string, options: SayOptions): Promise<SayResult>;
  /** The user's next turn, or null on silence (timeout, or no input left in a simulation). */
  listen(options: ListenOptions): Promise<UserTurn | null>;

  /**
   * The next keypad digit, or null on timeout. Digits are buffered from the moment the session
   * starts, so keys pressed during a prompt (or before a collect node starts) are not lost.
   */
  nextDigit(options: DigitOptions): Promise<string | null>;
  /** Drops buffered digits (e.g. a node that wants only fresh input). */
  clearDigits(): void;

  transfer(destination: string, options: TransferOptions): Promise<TransferOutcome>;
  dial(destination: string, options: DialOptions): Promise<DialOutcome>;
  /** Ends the line; idempotent. */
  hangup(): Promise<void>;
}

/** The error a channel rejects with when the signal aborts; carries the signal's reason. */
export { abortError } from '../shared/input-wait.js';
