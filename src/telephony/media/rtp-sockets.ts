// The UDP side an RTP session has wherever it runs (rtp-session.ts on this thread,
// workers/media-worker.ts on a media worker): binding its sockets (RTP on an even port, RTCP on the
// next unless rtcp-mux), closing them, and what one datagram on them is before the receiver sees
// it: SRTP unprotected, RTCP told from RTP (RFC 5761 on a muxed port), RTCP taken only from the
// host media is latched to, RTP through the latching rule (latch.ts); every drop counted.
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { Latch } from './latch.js';
import { isRtcp, parseRtcp, type RtcpPacket } from './rtcp.js';
import { decodeRtp, RtpStatus, type RtpPacket } from './rtp-packet.js';
import type { SrtpStreams } from './srtp/srtp-streams.js';

/** Binds the RTP socket on `port` and, unless muxed, the RTCP one on the next; both or neither. */
export async function bindRtpSockets(
  host: string,
  port: number,
  rtcpMux: boolean,
): Promise<{ rtp: dgram.Socket; rtcp: dgram.Socket | null }> {
  const type = isIP(host) === 6 ? 'udp6' : 'udp4';
  const rtp = await bindSocket(type, host, port);
  if (rtcpMux) return { rtp, rtcp: null };
  try {
    return { rtp, rtcp: await bindSocket(type, host, port + 1) };
  } catch (err) {
    rtp.close();
    throw err;
  }
}

function bindSocket(type: 'udp4' | 'udp6', host: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type, reuseAddr: false });
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

export function closeSocket(socket: dgram.Socket | null): Promise<void> {
  return new Promise((resolve) => (socket ? socket.close(() => resolve()) : resolve()));
}

/** What a session counts of what reaches its sockets. */
export interface IntakeCounters {
  rtpIn: number;
  rtcpIn: number;
  malformed: number;
  /** Valid packets from a source other than the latched one. */
  stray: number;
  /** SRTP or SRTCP packets dropped: failed authentication, replayed, or arrived before the keys. */
  srtpDropped: number;
}

/** What taking a datagram needs of its session (SRTP apart: a session replaces its streams). */
export interface IntakeSession {
  readonly latch: Latch;
  readonly counters: IntakeCounters;
  /** Where an RTP packet is decoded to (reused from one datagram to the next). */
  readonly packet: RtpPacket;
}

/**
 * What a datagram turned out to be: null, dropped (and counted); RTCP from the latched host
 * (counted, the latch told), with its packets; or RTP decoded into the session's `packet` from an
 * accepted source, `latched` when the session just latched to it. RTP is counted (`rtpIn`) by the
 * caller as it hands the packet on.
 */
export type Intake = null | 'rtp' | 'latched' | { rtcp: Buffer; packets: RtcpPacket[] };

export function takeDatagram(
  s: IntakeSession,
  srtp: SrtpStreams | 'pending' | null,
  datagram: Buffer,
  from: { address: string; port: number },
  onRtcpPort: boolean,
): Intake {
  const rtcp = onRtcpPort || isRtcp(datagram);
  let msg = datagram;
  if (srtp !== null) {
    const plain =
      srtp === 'pending' ? null : rtcp ? srtp.inbound.unprotectRtcp(msg) : srtp.inbound.unprotectRtp(msg);
    if (!plain) {
      s.counters.srtpDropped++;
      return null;
    }
    msg = plain;
  }
  if (rtcp) {
    const packets = parseRtcp(msg);
    if (!packets) {
      s.counters.malformed++;
      return null;
    }
    // RTCP can end a call (BYE): take it only from the host media is latched to.
    if (!s.latch.acceptsRtcpFrom(from.address)) {
      s.counters.stray++;
      return null;
    }
    s.counters.rtcpIn++;
    s.latch.rtcpArrived(from.address, from.port);
    return { rtcp: msg, packets };
  }
  if (decodeRtp(msg, s.packet) !== RtpStatus.Ok) {
    s.counters.malformed++;
    return null;
  }
  const verdict = s.latch.accept(from.address, from.port);
  if (verdict === 'stray') {
    s.counters.stray++;
    return null;
  }
  return verdict === 'latched' ? 'latched' : 'rtp';
}
