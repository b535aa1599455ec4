// Joins two calls' media (a warm transfer's caller and human): every frame one side's jitter
// buffer plays out goes to the other side's sender, and key presses are passed through as RFC 4733
// events. Audio crosses at the pipeline rate (16 kHz PCM), so the two legs may use different
// codecs (Opus on one, G.711 on the other); the cost is one decode and one encode per frame.
//
// With media workers, when both sides are RtpSessions on one pool's workers, the audio does not pass
// through this thread at all: each worker hands its side's decoded frames straight to the other
// side's sender (RtpSession.bridgeOnWorkers), with the same queue limit; only key presses and
// the figures (100 ms old at most) come here.
//
// The bridge moves media only. Who hangs up whom when one side leaves is the transfer's business
// (transfer-warm.ts): stopping the bridge just unhooks both directions.
//
// Clock drift: each side's sender paces at its own 20 ms tick, fed by the other side's receiver
// ticking at the same nominal rate. When the receiving side falls behind (a stalled timer, a
// burst after a network hiccup) the queue would grow without bound and add delay for the rest of
// the call; frames arriving while more than `maxQueuedMs` (default 200) wait are dropped instead.
import { Listeners } from '../../shared/listeners.js';
import type { DigitEvent } from './dtmf.js';
import type { AudioFrameInfo } from './rtp-receiver.js';
import type { RtpSession } from './rtp-session.js';

/** One side of a bridge: a call's media as the bridge needs it. */
export interface BridgeEnd {
  /** Queues pipeline-rate PCM for paced sending to this side's party. */
  play(pcm: Int16Array): void;
  /** Milliseconds of audio queued for this side and not sent yet. */
  readonly queuedMs: number;
  /** This side's audio, one frame at a time; returns the unsubscribe. */
  onAudio(listener: (pcm: Int16Array) => void): () => void;
  /** This side's key presses, one event per press; returns the unsubscribe. */
  onDigit(listener: (digit: string) => void): () => void;
  /** Sends one key press to this side's party (RFC 4733). */
  sendDigit(digit: string): void;
  /** The RtpSession behind this side, when there is one (lets the workers carry the audio). */
  readonly session?: RtpSession;
}

export interface BridgeCounters {
  /** Frames from side a played to side b, and the other way. */
  aToB: number;
  bToA: number;
  /** Frames dropped because the receiving side's queue was over the limit. */
  droppedAToB: number;
  droppedBToA: number;
  digitsAToB: number;
  digitsBToA: number;
}

export interface BridgeOptions {
  /** Queue depth above which incoming frames are dropped (see the drift note above). */
  maxQueuedMs?: number;
}

export class MediaBridge {
  private readonly own: BridgeCounters = {
    aToB: 0,
    bToA: 0,
    droppedAToB: 0,
    droppedBToA: 0,
    digitsAToB: 0,
    digitsBToA: 0,
  };
  /** The sessions whose workers carry the audio, and their figures when the bridge began. */
  private direct: {
    a: RtpSession;
    b: RtpSession;
    base: { aIn: number; aDrop: number; bIn: number; bDrop: number };
  } | null = null;
  private unhook: Array<() => void> = [];
  private readonly maxQueuedMs: number;

  constructor(
    private readonly a: BridgeEnd,
    private readonly b: BridgeEnd,
    options: BridgeOptions = {},
  ) {
    this.maxQueuedMs = options.maxQueuedMs ?? 200;
  }

  get running(): boolean {
    return this.unhook.length > 0;
  }

  /** Frames and presses passed each way (frames carried by workers: as of their last figures). */
  get counters(): BridgeCounters {
    const d = this.direct;
    if (d) {
      const c = this.own;
      c.aToB = d.b.bridged.in - d.base.bIn;
      c.droppedAToB = d.b.bridged.dropped - d.base.bDrop;
      c.bToA = d.a.bridged.in - d.base.aIn;
      c.droppedBToA = d.a.bridged.dropped - d.base.aDrop;
    }
    return this.own;
  }

  /** Whether the media workers carry the audio (see the note above). */
  get onWorkers(): boolean {
    return this.direct !== null;
  }

  /** Starts passing audio and digits both ways; a second call does nothing. */
  start(): void {
    if (this.running) return;
    const c = this.own;
    const digits = [
      this.a.onDigit((d) => {
        c.digitsAToB++;
        this.b.sendDigit(d);
      }),
      this.b.onDigit((d) => {
        c.digitsBToA++;
        this.a.sendDigit(d);
      }),
    ];
    const a = this.a.session;
    const b = this.b.session;
    const unjoin = a && b ? a.bridgeOnWorkers(b, this.maxQueuedMs) : null;
    if (unjoin && a && b) {
      this.direct = {
        a,
        b,
        base: { aIn: a.bridged.in, aDrop: a.bridged.dropped, bIn: b.bridged.in, bDrop: b.bridged.dropped },
      };
      this.unhook = [unjoin, ...digits];
      return;
    }
    this.unhook = [
      ...digits,
      this.a.onAudio((pcm) => {
        if (this.b.queuedMs > this.maxQueuedMs) c.droppedAToB++;
        else {
          c.aToB++;
          this.b.play(pcm);
        }
      }),
      this.b.onAudio((pcm) => {
        if (this.a.queuedMs > this.maxQueuedMs) c.droppedBToA++;
        else {
          c.bToA++;
          this.a.play(pcm);
        }
      }),
    ];
  }

  /** Unhooks both directions (the sessions themselves are left as they are). */
  stop(): void {
    void this.counters; // the workers' last figures, kept
    this.direct = null;
    for (const off of this.unhook.splice(0)) off();
  }
}

/**
 * Fan-out for the callbacks of an RtpSession we create ourselves (the human's leg): pass
 * `tap.sessionOptions` into the session's options, and `rtpBridgeEnd(session, tap)` makes the
 * bridge side of it.
 */
export class MediaTap {
  private readonly audio = new Listeners<Int16Array>();
  private readonly digits = new Listeners<string>();
  /** Frames and presses seen (for tests and logs), whether anyone listened or not. */
  frames = 0;
  presses = 0;

  readonly sessionOptions = {
    onAudio: (pcm: Int16Array): void => {
      this.frames++;
      this.audio.emit(pcm);
    },
    onDigit: (d: DigitEvent): void => {
      this.presses++;
      this.digits.emit(d.digit);
    },
  };

  onAudio(listener: (pcm: Int16Array) => void): () => void {
    return this.audio.add(listener);
  }

  onDigit(listener: (digit: string) => void): () => void {
    return this.digits.add(listener);
  }
}

/** The bridge side of an RtpSession whose onAudio/onDigit go through `tap`. */
export function rtpBridgeEnd(session: RtpSession, tap: MediaTap): BridgeEnd {
  return {
    play: (pcm) => session.enqueue(pcm),
    get queuedMs() {
      return session.sender.queuedMs;
    },
    onAudio: (l) => tap.onAudio(l),
    onDigit: (l) => tap.onDigit(l),
    sendDigit: (d) => void session.sendDigits(d),
    session,
  };
}

/** A tap put on a running session by `tapSession`. */
export interface SessionTap {
  readonly end: BridgeEnd;
  /** Puts the session's own callbacks back as they were. */
  untap(): void;
}

type ReceiverCallbacks = {
  onAudio?: (pcm: Int16Array, info: AudioFrameInfo) => void;
  onDigit?: (digit: DigitEvent) => void;
};

/**
 * Taps a session someone else built (the caller's, owned by the call host): its audio frames and
 * RFC 4733 presses reach the tap's listeners as well as the session's own callbacks, until
 * `untap`. The session takes its callbacks at construction and offers no way to add one later, so
 * this wraps the receiver's callback slots in place; `bridge.test.ts` checks it against the real
 * RtpSession, so a change there fails loudly here. Prefer `MediaTap` for sessions you create.
 */
export function tapSession(session: RtpSession): SessionTap {
  // MediaReceiver and the workers' RemoteReceiver both keep their callbacks in `options`.
  const slots = (session.receiver as unknown as { options: ReceiverCallbacks }).options;
  const own = { onAudio: slots.onAudio, onDigit: slots.onDigit };
  const tap = new MediaTap();
  slots.onAudio = (pcm, info) => {
    own.onAudio?.(pcm, info);
    tap.sessionOptions.onAudio(pcm);
  };
  slots.onDigit = (d) => {
    own.onDigit?.(d);
    tap.sessionOptions.onDigit(d);
  };
  let tapped = true;
  return {
    end: rtpBridgeEnd(session, tap),
    untap: () => {
      if (!tapped) return;
      tapped = false;
      slots.onAudio = own.onAudio;
      slots.onDigit = own.onDigit;
    },
  };
}

/**
 * `end` with its key presses taken from `digits` instead of its own (the caller's side of a warm
 * transfer: the call's media hands over RFC 4733 and SIP INFO presses, de-duplicated, where the
 * session tap would see RFC 4733 ones only).
 */
export function withDigitSource(
  end: BridgeEnd,
  digits: (listener: (digit: string) => void) => () => void,
): BridgeEnd {
  return {
    play: (pcm) => end.play(pcm),
    get queuedMs() {
      return end.queuedMs;
    },
    onAudio: (l) => end.onAudio(l),
    onDigit: (l) => digits(l),
    sendDigit: (d) => end.sendDigit(d),
    ...(end.session ? { session: end.session } : {}),
  };
}
