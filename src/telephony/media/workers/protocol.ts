// The messages between the main thread and a media worker. Small and flat: a session is a number,
// audio goes as typed arrays, what comes back goes once per 20 ms batch: the decoded audio of every
// session that has a listener in one transferred buffer, key presses, RTCP datagrams, figures.
import type { MessagePort } from 'node:worker_threads';
import type { DigitEnd, DigitEvent } from '../dtmf.js';
import type { JitterBufferOptions, JitterStats } from '../jitter-buffer.js';
import type { ReceiverCounters } from '../rtp-receiver.js';
import type { IntakeCounters } from '../rtp-sockets.js';
import type { DigitOptions, SenderStats } from '../rtp-sender.js';
import type { SrtpCounters } from '../srtp/srtp-context.js';
import type { FrameTickCounts } from '../shared-pacer.js';
import type { SrtpSuiteName } from '../srtp/suites.js';

export interface WireSrtp {
  suite: SrtpSuiteName;
  localKey: Uint8Array;
  remoteKey: Uint8Array;
}

export interface WireAddress {
  address: string;
  port: number;
  rtcpPort?: number;
}

/** What the worker needs to receive for a session: the latching rule, the receiver's settings. */
export interface WireReceive {
  remote: WireAddress | null;
  latch?: 'any' | 'sdp-address';
  relatchAfter?: number;
  jitter?: Omit<JitterBufferOptions, 'clockRate'>;
  /** Send the decoded audio back (someone on the main thread listens: STT, a recording, AMD). */
  audio: boolean;
}

export interface OpenSession {
  t: 'open';
  id: number;
  host: string;
  port: number;
  rtcpMux: boolean;
  codec: string;
  payloadType: number;
  telephoneEventPayloadType?: number;
  ssrc: number;
  sequence: number;
  timestamp: number;
  idle?: 'silence' | 'pause';
  srtp: WireSrtp | 'pending' | null;
  receive: WireReceive;
}

export type ToWorker =
  | OpenSession
  | { t: 'start'; id: number }
  | { t: 'remote'; id: number; remote: WireAddress }
  | { t: 'pcm'; id: number; pcm: Int16Array }
  | { t: 'clear'; id: number; gen: number }
  | { t: 'paused'; id: number; paused: boolean }
  | { t: 'codec'; id: number; codec: string; payloadType: number }
  | { t: 'te'; id: number; payloadType: number }
  | { t: 'digits'; id: number; req: number; digits: string; options: DigitOptions }
  | { t: 'srtp'; id: number; srtp: WireSrtp | null }
  | { t: 'tap'; id: number; on: boolean }
  | { t: 'rtcp'; id: number; req: number; packet: Uint8Array; to: WireAddress }
  /**
   * Joins this session's received audio to `peer`'s sender (a bridge): directly when both live on
   * this worker, else through `port` (one end of a MessageChannel whose other end the peer's
   * worker has). Frames are dropped while the peer's queue holds more than maxQueuedMs.
   */
  | { t: 'bridge'; id: number; peer: number; port: MessagePort | null; maxQueuedMs: number }
  | { t: 'unbridge'; id: number }
  | { t: 'close'; id: number };

/** Over a bridge's MessageChannel: one frame for `to`'s sender. */
export interface BridgeFrame {
  to: number;
  pcm: Int16Array;
}

/** One session's sender figures, as of `epochMs` (performance.timeOrigin + now, in the worker). */
export interface WireStats extends SenderStats {
  id: number;
  rtpOut: number;
  queuedMs: number;
  /** Clears so far (the main thread's count), and the samples queued since the last one. */
  gen: number;
  received: number;
  /** The RTP timestamp due at epochMs, for a sender report's RTP/NTP pair. */
  rtpTimestamp: number;
  clockRate: number;
  epochMs: number;
  /** The receive side: the session's counters (rtpIn, stray, …), the receiver's, the buffer's. */
  rx: IntakeCounters;
  receiver: ReceiverCounters;
  jitter: JitterStats;
  remoteSsrc: number | null;
  reception: WireReception | null;
  srtpIn: SrtpCounters | null;
  /** Frames a bridge brought to this session's sender, and dropped for a full queue. */
  bridgedIn: number;
  bridgeDropped: number;
}

/** A snapshot of the remote source's RFC 3550 statistics. */
export interface WireReception {
  valid: boolean;
  expected: number;
  received: number;
  extendedMax: number;
  cumulativeLost: number;
  jitter: number;
  jitterMs: number;
}

/** An RTCP datagram (SRTCP already unprotected): [session id, offset, length, source address, source port] */
export type WireDatagram = [number, number, number, string, number];

/** Decoded frames: [session id, offset in samples, samples, concealed (1/0), RTP sequence number]. */
export type WireFrame = [number, number, number, number, number];

export type FromWorker =
  /**
   * Started; `nice` is the thread's scheduling priority now, `niceError` why the asked one was
   * refused, `thread` its OS thread id (Linux), so its CPU time can be read from /proc.
   */
  | { t: 'ready'; nice: number; niceError: string | null; thread: number | null }
  | { t: 'opened'; id: number; error?: string; code?: string }
  | {
      t: 'batch';
      /** RTCP datagrams in one transferred buffer. */
      data: ArrayBuffer | null;
      rtcp: WireDatagram[];
      /** Decoded audio (16 kHz) of the sessions that send it, one buffer for the batch. */
      pcm: Int16Array | null;
      frames: WireFrame[];
      digits: [number, DigitEvent][];
      digitEnds: [number, DigitEnd][];
      /** Sessions that latched to a new source: [id, address, port]. */
      latched: [number, string, number][];
      stats: WireStats[];
      /** Frames sent by sessions with a tap (a recording): [id, pcm]. */
      sent: [number, Int16Array][];
      /** The worker's frame timer: ticks due, late and skipped, since it started. */
      ticks: FrameTickCounts;
    }
  | { t: 'done'; id: number; req: number }
  | { t: 'closed'; id: number }
  | { t: 'error'; id: number; message: string };
