// One direction's SRTP and SRTCP transform (RFC 3711): protect() on the keys we send with,
// unprotect() on the keys the peer sends with, each a context of its own (SDES gives each side its
// own master key). Per packet: AES-CM over the payload, HMAC-SHA1 over the header, the encrypted
// payload and the rollover counter, the tag truncated to the suite's length.
//
// Rollover counters: the sender counts its sequence number's wraps; the receiver guesses the
// packet's counter from the highest index it authenticated (RFC 3711 3.3.1) and keeps the guess
// only once the packet authenticates. Replays and packets older than the window are dropped
// before any crypto runs; a packet that fails authentication changes no state, so a forged or
// wrong-key packet costs one HMAC and nothing else. Per-source state is created only by an
// authenticated packet, so junk cannot fill it.
//
// Hot path: the IV, counter blocks and rollover bytes live in scratch buffers; what a packet
// allocates is the output (protect) or nothing but Node's keystream and digest (unprotect, which
// decrypts in place into the datagram it was handed and returns a view of it).
import { createHmac } from 'node:crypto';
import { AesCm } from './aes-cm.js';
import { deriveSessionKeys, type SessionKeys } from './key-derivation.js';
import { ReplayWindow } from './replay-window.js';
import type { SrtpSuite } from './suites.js';

export interface SrtpCounters {
  /** Packets protected (RTP and RTCP). */
  protected: number;
  /** Packets that authenticated and were decrypted. */
  unprotected: number;
  /** Dropped: the tag did not match (wrong key, tampering, a plain RTP packet). */
  authFailed: number;
  /** Dropped: an index seen already, or older than the replay window. */
  replayed: number;
  /** Dropped: too short, or a header running into the tag. */
  malformed: number;
}

/** Sources one receiving context keeps state for; the oldest is forgotten beyond this. */
const MAX_SOURCES = 16;
const SRTCP_E_BIT = 0x80000000;

interface Direction {
  readonly cipher: AesCm;
  readonly authKey: Buffer;
  readonly salt: Buffer;
}

interface Source {
  readonly rtp: ReplayWindow;
  readonly rtcp: ReplayWindow;
}

export class SrtpContext {
  readonly counters: SrtpCounters = {
    protected: 0,
    unprotected: 0,
    authFailed: 0,
    replayed: 0,
    malformed: 0,
  };
  /** The SRTCP index the next protected RTCP packet carries (31 bits). */
  srtcpIndex = 0;
  private readonly rtp: Direction;
  private readonly rtcp: Direction;
  private readonly iv = Buffer.alloc(16);
  private readonly roc = Buffer.alloc(4);
  private readonly sources = new Map<number, Source>();
  /** Sending side: the rollover counter and last sequence number of each SSRC we protect. */
  private readonly sending = new Map<number, { roc: number; seq: number }>();

  constructor(
    readonly suite: SrtpSuite,
    masterKey: Buffer,
    masterSalt: Buffer,
  ) {
    const keys = deriveSessionKeys(suite, masterKey, masterSalt);
    const direction = (k: SessionKeys): Direction => ({
      cipher: new AesCm(k.encryptionKey),
      authKey: k.authenticationKey,
      salt: k.salt,
    });
    this.rtp = direction(keys.rtp);
    this.rtcp = direction(keys.rtcp);
  }

  /** An SRTP packet for an RTP packet (which is left as it was). */
  protectRtp(packet: Buffer): Buffer {
    const header = rtpHeaderLength(packet, packet.length);
    if (header < 0) throw new Error('cannot protect a malformed RTP packet');
    const ssrc = packet.readUInt32BE(8);
    const seq = packet.readUInt16BE(2);
    let state = this.sending.get(ssrc);
    if (!state) {
      state = { roc: 0, seq };
      this.sending.set(ssrc, state);
    } else if (seq < state.seq && state.seq - seq > 0x8000) {
      state.roc = (state.roc + 1) >>> 0;
    }
    if (seq > state.seq || state.seq - seq > 0x8000) state.seq = seq;
    const index = state.roc * 0x10000 + seq;
    const tag = this.suite.rtpTagLength;
    const out = Buffer.allocUnsafe(packet.length + tag);
    packet.copy(out, 0);
    this.setIv(this.rtp.salt, ssrc, index);
    this.rtp.cipher.xor(this.iv, out, header, packet.length - header);
    this.roc.writeUInt32BE(state.roc, 0);
    const mac = createHmac('sha1', this.rtp.authKey)
      .update(out.subarray(0, packet.length))
      .update(this.roc)
      .digest();
    mac.copy(out, packet.length, 0, tag);
    this.counters.protected++;
    return out;
  }

  /**
   * The RTP packet inside an SRTP one, decrypted in place (the datagram is changed) and returned
   * as a view without the tag; null when it is dropped (see counters).
   */
  unprotectRtp(packet: Buffer): Buffer | null {
    const tag = this.suite.rtpTagLength;
    const end = packet.length - tag;
    const header = end >= 12 ? rtpHeaderLength(packet, end) : -1;
    if (header < 0) {
      this.counters.malformed++;
      return null;
    }
    const ssrc = packet.readUInt32BE(8);
    const seq = packet.readUInt16BE(2);
    const known = this.sources.get(ssrc);
    const window = known?.rtp ?? null;
    const roc = guessRoc(window?.highest ?? -1, seq);
    const index = roc * 0x10000 + seq;
    if (roc < 0 || (window && !window.check(index))) {
      this.counters.replayed++;
      return null;
    }
    this.roc.writeUInt32BE(roc >>> 0, 0);
    const mac = createHmac('sha1', this.rtp.authKey)
      .update(packet.subarray(0, end))
      .update(this.roc)
      .digest();
    if (!tagMatches(mac, packet, end, tag)) {
      this.counters.authFailed++;
      return null;
    }
    this.setIv(this.rtp.salt, ssrc, index);
    this.rtp.cipher.xor(this.iv, packet, header, end - header);
    this.source(ssrc, known).rtp.accept(index);
    this.counters.unprotected++;
    return packet.subarray(0, end);
  }

  /** An SRTCP packet for a (compound) RTCP packet: encrypted, E flag and index, tag. */
  protectRtcp(packet: Buffer): Buffer {
    if (packet.length < 8) throw new Error('cannot protect an RTCP packet shorter than 8 bytes');
    const tag = this.suite.rtcpTagLength;
    const index = this.srtcpIndex;
    this.srtcpIndex = (index + 1) & 0x7fffffff;
    const out = Buffer.allocUnsafe(packet.length + 4 + tag);
    packet.copy(out, 0);
    this.setIv(this.rtcp.salt, packet.readUInt32BE(4), index);
    this.rtcp.cipher.xor(this.iv, out, 8, packet.length - 8);
    out.writeUInt32BE((SRTCP_E_BIT | index) >>> 0, packet.length);
    const mac = createHmac('sha1', this.rtcp.authKey)
      .update(out.subarray(0, packet.length + 4))
      .digest();
    mac.copy(out, packet.length + 4, 0, tag);
    this.counters.protected++;
    return out;
  }

  /** The RTCP packet inside an SRTCP one, decrypted in place; null when it is dropped. */
  unprotectRtcp(packet: Buffer): Buffer | null {
    const tag = this.suite.rtcpTagLength;
    const end = packet.length - tag;
    if (end < 12) {
      this.counters.malformed++;
      return null;
    }
    const word = packet.readUInt32BE(end - 4);
    const index = word & 0x7fffffff;
    const ssrc = packet.readUInt32BE(4);
    const known = this.sources.get(ssrc);
    if (known && !known.rtcp.check(index)) {
      this.counters.replayed++;
      return null;
    }
    const mac = createHmac('sha1', this.rtcp.authKey).update(packet.subarray(0, end)).digest();
    if (!tagMatches(mac, packet, end, tag)) {
      this.counters.authFailed++;
      return null;
    }
    // E = 0: the sender left this one unencrypted (RFC 3711 3.4), which it may.
    if (word & SRTCP_E_BIT) {
      this.setIv(this.rtcp.salt, ssrc, index);
      this.rtcp.cipher.xor(this.iv, packet, 8, end - 4 - 8);
    }
    this.source(ssrc, known).rtcp.accept(index);
    this.counters.unprotected++;
    return packet.subarray(0, end - 4);
  }

  /** IV = (salt * 2^16) XOR (SSRC * 2^64) XOR (index * 2^16), RFC 3711 4.1.1. */
  private setIv(salt: Buffer, ssrc: number, index: number): void {
    const iv = this.iv;
    salt.copy(iv, 0, 0, 14);
    iv[14] = 0;
    iv[15] = 0;
    iv.writeUInt32BE((iv.readUInt32BE(4) ^ ssrc) >>> 0, 4);
    const high = Math.floor(index / 0x100000000);
    iv.writeUInt16BE((iv.readUInt16BE(8) ^ high) & 0xffff, 8);
    iv.writeUInt32BE((iv.readUInt32BE(10) ^ index) >>> 0, 10);
  }

  private source(ssrc: number, known: Source | undefined): Source {
    if (known) return known;
    if (this.sources.size >= MAX_SOURCES) this.sources.delete(this.sources.keys().next().value!);
    const created = { rtp: new ReplayWindow(), rtcp: new ReplayWindow() };
    this.sources.set(ssrc, created);
    return created;
  }
}

/**
 * The rollover counter a packet with sequence number `seq` most likely carries, given the highest
 * index authenticated so far (-1: none, the stream starts at counter 0). -1 when the packet would
 * come from before the stream's first counter.
 */
export function guessRoc(highest: number, seq: number): number {
  if (highest < 0) return 0;
  const top = highest % 0x10000;
  const roc = Math.floor(highest / 0x10000);
  if (top < 0x8000) return seq - top > 0x8000 ? roc - 1 : roc;
  return top - 0x8000 > seq ? roc + 1 : roc;
}

/** The RTP header's length (fixed part, CSRCs, extension), or -1 if it does not fit in `end`. */
function rtpHeaderLength(packet: Buffer, end: number): number {
  if (end < 12 || packet[0] >> 6 !== 2) return -1;
  let length = 12 + 4 * (packet[0] & 0x0f);
  if (packet[0] & 0x10) {
    if (length + 4 > end) return -1;
    length += 4 + 4 * packet.readUInt16BE(length + 2);
  }
  return length <= end ? length : -1;
}

/** Compares the truncated tag without an early exit. */
function tagMatches(mac: Buffer, packet: Buffer, at: number, length: number): boolean {
  let diff = 0;
  for (let i = 0; i < length; i++) diff |= mac[i] ^ packet[at + i];
  return diff === 0;
}
