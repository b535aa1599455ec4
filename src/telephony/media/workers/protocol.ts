// The messages between the main thread and a media worker. Small and flat: a session is a number,
// audio goes as typed arrays, received datagrams go as one transferred buffer per batch.
import type { DigitOptions, SenderStats } from '../rtp-sender.js';
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
}

export type ToWorker =
  | OpenSession
  | { t: 'start'; id: number }
  | { t: 'dest'; id: number; to: WireAddress | null }
  | { t: 'pcm'; id: number; pcm: Int16Array }
  | { t: 'clear'; id: number; gen: number }
  | { t: 'paused'; id: number; paused: boolean }
  | { t: 'codec'; id: number; codec: string; payloadType: number }
  | { t: 'te'; id: number; payloadType: number }
  | { t: 'digits'; id: number; req: number; digits: string; options: DigitOptions }
  | { t: 'srtp'; id: number; srtp: WireSrtp | null }
  | { t: 'tap'; id: number; on: boolean }
  | { t: 'rtcp'; id: number; req: number; packet: Uint8Array; to: WireAddress }
  | { t: 'close'; id: number };

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
}

/** [session id, offset, length, source address, source port, arrived on the RTCP port (1/0)] */
export type WireDatagram = [number, number, number, string, number, number];

export type FromWorker =
  | { t: 'ready' }
  | { t: 'opened'; id: number; error?: string; code?: string }
  | {
      t: 'batch';
      data: ArrayBuffer | null;
      rx: WireDatagram[];
      stats: WireStats[];
      /** Frames sent by sessions with a tap (a recording): [id, pcm]. */
      sent: [number, Int16Array][];
      /** The worker's frame timer: ticks due, late and skipped, since it started. */
      ticks: FrameTickCounts;
    }
  | { t: 'done'; id: number; req: number }
  | { t: 'closed'; id: number }
  | { t: 'error'; id: number; message: string };
