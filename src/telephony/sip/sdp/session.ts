// What offer and answer share: our side's audio settings, the negotiated result, and reading the
// remote address and direction of an m-line (with RFC 2543 c=0.0.0.0 hold folded in).
import { isIPv6 } from 'node:net';
import type { MediaDescription, SessionDescription } from 'sdp-transform';
import type { Codec, CodecName, Direction, DynamicPayloadTypes } from './codecs.js';
import type { NegotiatedSrtp, SdesKey } from './crypto.js';

export interface LocalAudio {
  /** Where we receive RTP. */
  readonly address: string;
  readonly port: number;
  /** Our preference order; formats not listed are never used. */
  readonly codecs: readonly CodecName[];
  /** Offer or accept RFC 4733 events (default true). */
  readonly telephoneEvent?: boolean;
  /** What we want: 'sendonly' puts the other side on hold, 'inactive' stops both ways. */
  readonly direction?: Direction;
  readonly ptime?: number;
  readonly dynamicPayloadTypes?: DynamicPayloadTypes;
  /** Answer with one audio format (plus events) instead of all common ones. */
  readonly singleCodec?: boolean;
  /**
   * SRTP with SDES (crypto.ts): our keys, one per suite, in preference order. Set only when the
   * signalling is secure (TLS), since the keys travel in the SDP. With it our offers are RTP/SAVP
   * and RTP/SAVP offers are answered; without it an RTP/SAVP offer is refused.
   */
  readonly srtp?: { readonly keys: readonly SdesKey[] };
}

export interface Origin {
  readonly username?: string;
  readonly sessionId: string;
  /** Must go up by one with every new description in the session (RFC 3264 8). */
  readonly sessionVersion: number;
  readonly address: string;
}

export interface NegotiatedAudio {
  readonly remoteAddress: string;
  readonly remotePort: number;
  /** Audio formats both sides accept, most preferred first, with the payload types to send. */
  readonly codecs: readonly Codec[];
  readonly codec: Codec;
  /** telephone-event at the chosen codec's clock rate, when both sides do RFC 4733. */
  readonly telephoneEvent?: Codec;
  /** Our direction: may we send, may we receive. */
  readonly direction: Direction;
  /** The other side holds the call (sendonly / inactive / c=0.0.0.0): send it nothing. */
  readonly remoteHold: boolean;
  readonly ptime: number;
  /** The stream is SRTP: the suite and both sides' keys. */
  readonly srtp?: NegotiatedSrtp;
}

export function connectionOf(session: SessionDescription, m: MediaDescription): string | undefined {
  return m.connection?.ip ?? session.connection?.ip;
}

/**
 * The direction the remote side declared for an m-line. c=0.0.0.0 is RFC 2543 hold: the remote
 * side will not receive, so it counts as sendonly (RFC 3264 8.4).
 */
export function remoteDirection(session: SessionDescription, m: MediaDescription): Direction {
  let d: Direction = m.direction ?? (session.direction as Direction | undefined) ?? 'sendrecv';
  if (connectionOf(session, m) === '0.0.0.0')
    d = d === 'sendrecv' ? 'sendonly' : d === 'recvonly' ? 'inactive' : d;
  return d;
}

export function ipVersion(address: string): 4 | 6 {
  return isIPv6(address) ? 6 : 4;
}

export function sessionFrame(origin: Origin, media: MediaDescription[], address: string): SessionDescription {
  return {
    version: 0,
    origin: {
      username: origin.username ?? '-',
      sessionId: origin.sessionId,
      sessionVersion: origin.sessionVersion,
      netType: 'IN',
      ipVer: ipVersion(origin.address),
      address: origin.address,
    },
    name: '-',
    connection: { version: ipVersion(address), ip: address },
    timing: { start: 0, stop: 0 },
    media,
  };
}

/** The m-line for a set of formats, rtpmap and fmtp included. */
export function audioLine(
  port: number,
  protocol: string,
  formats: readonly Codec[],
  direction: Direction,
  ptime: number,
): MediaDescription {
  return {
    type: 'audio',
    port,
    protocol,
    payloads: formats.map((f) => f.pt).join(' '),
    rtp: formats.map((f) => ({
      payload: f.pt,
      codec: f.name,
      rate: f.clockRate,
      ...(f.channels > 1 ? { encoding: f.channels } : {}),
    })),
    fmtp: formats.filter((f) => f.fmtp !== undefined).map((f) => ({ payload: f.pt, config: f.fmtp! })),
    ptime,
    direction,
  };
}
